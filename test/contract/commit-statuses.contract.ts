import { randomUUID } from 'node:crypto';
import type { RepoRef } from '@railyard/domain';
import { isGitHostError, type CommitStatusInput, type CommitStatusStore } from '@railyard/githost';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';

/** Instances of one adapter over one shared backing store, as separate processes would have. */
export interface StatusStoresUnderTest {
  /** Another instance over the same backing store; `clock` is what it stamps reports with. */
  open(clock?: () => Date): Promise<CommitStatusStore>;
  /** Resolves once the instance hears other instances' changes. */
  listening(store: CommitStatusStore): Promise<void>;
  /** Reports from a separate OS process, when the backing store can be shared with one. */
  writeFromChild?(repo: RepoRef, sha: string, contexts: string[]): Promise<void>;
  cleanup(): Promise<void>;
}

/** The git root holding the repository the suite reports on; adapters refuse any other. */
export interface StatusBed {
  gitRoot: string;
  repo: RepoRef;
  sha: string;
}

const runId = randomUUID().slice(0, 8);
let repoCounter = 0;
/** A repository name no earlier run used, so a shared server's older statuses never match (KurrentDB). */
const freshRepo = (): RepoRef => ({ host: 'git.contract', owner: 'acme', name: `widgets-${runId}-${++repoCounter}` });
const UNKNOWN: RepoRef = { host: 'git.contract', owner: 'acme', name: 'nowhere' };
const OTHER_SHA = 'b'.repeat(40);

const eventually = async (check: () => boolean, what: string): Promise<void> => {
  // A hang guard, not a measurement: listeners are woken by the store, this only bounds the wait.
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`not met: ${what}`);
};

const failureOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: unknown) => err,
  );

/** The CommitStatusStore contract (docs/ci.md, "Commit statuses"): every adapter passes it. */
export const commitStatusStoreContract = (
  name: string,
  make: (bed: StatusBed) => Promise<StatusStoresUnderTest>,
  options: { crossProcess?: boolean } = {},
): void => {
  describe(`CommitStatusStore contract: ${name}`, () => {
    let dir: string;
    let bed: StatusBed;
    let stores: StatusStoresUnderTest;
    const opened: CommitStatusStore[] = [];
    const open = async (clock?: () => Date): Promise<CommitStatusStore> => {
      const store = await stores.open(clock);
      opened.push(store);
      return store;
    };

    beforeEach(async () => {
      dir = await makeTempDir('railyard-statuses-');
      const repo = freshRepo();
      const { sha } = await createRepoWithCommits(dir, repo);
      bed = { gitRoot: dir, repo, sha };
      stores = await make(bed);
    });

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
      await stores.cleanup();
      await removeTempDir(dir);
    });

    it('when contexts report and report again, then list holds the latest of each in first-report order with its first createdAt', async () => {
      let minute = 0;
      const store = await open(() => new Date(Date.UTC(2026, 0, 1, 10, minute++)));
      await store.set(bed.repo, bed.sha, { context: 'build', state: 'pending', targetUrl: 'http://ci.test/1' });
      await store.set(bed.repo, bed.sha, { context: 'lint', state: 'success' });
      const answer = await store.set(bed.repo, bed.sha, { context: 'build', state: 'failure', description: 'exit 1' });
      const build = {
        context: 'build',
        state: 'failure',
        description: 'exit 1',
        createdAt: '2026-01-01T10:00:00.000Z',
        updatedAt: '2026-01-01T10:02:00.000Z',
      };
      expect(answer).toEqual(build);
      expect(await store.list(bed.repo, bed.sha)).toEqual([
        build,
        { context: 'lint', state: 'success', createdAt: '2026-01-01T10:01:00.000Z', updatedAt: '2026-01-01T10:01:00.000Z' },
      ]);
    });

    it('when reporters report the same context, then list holds the latest report and reports the latest of each reporter, latest last', async () => {
      let minute = 0;
      const store = await open(() => new Date(Date.UTC(2026, 0, 1, 10, minute++)));
      await store.set(bed.repo, bed.sha, { context: 'test', state: 'pending', reporter: 'local-ci' });
      await store.set(bed.repo, bed.sha, { context: 'test', state: 'success', reporter: 'token:ci' });
      await store.set(bed.repo, bed.sha, { context: 'test', state: 'failure', reporter: 'local-ci' });
      await store.set(bed.repo, bed.sha, { context: 'lint', state: 'success' });
      expect(await store.list(bed.repo, bed.sha)).toEqual([
        {
          context: 'test',
          state: 'failure',
          reporter: 'local-ci',
          createdAt: '2026-01-01T10:00:00.000Z',
          updatedAt: '2026-01-01T10:02:00.000Z',
        },
        { context: 'lint', state: 'success', createdAt: '2026-01-01T10:03:00.000Z', updatedAt: '2026-01-01T10:03:00.000Z' },
      ]);
      expect((await store.reports(bed.repo, bed.sha)).map((s) => [s.context, s.reporter, s.state])).toEqual([
        ['test', 'token:ci', 'success'],
        ['test', 'local-ci', 'failure'],
        ['lint', undefined, 'success'],
      ]);
    });

    it('when nothing was reported on a commit, then its list is empty and other commits do not leak into it', async () => {
      const store = await open();
      await store.set(bed.repo, bed.sha, { context: 'build', state: 'success' });
      expect(await store.list(bed.repo, OTHER_SHA)).toEqual([]);
    });

    it.each<[string, string, CommitStatusInput]>([
      ['a short sha', 'abc123', { context: 'build', state: 'success' }],
      ['an empty context', '', { context: ' ', state: 'success' }],
      ['a control character in the context', '', { context: 'a\nb', state: 'success' }],
      ['an unknown state', '', { context: 'build', state: 'done' as never }],
      ['a target URL that is not http(s)', '', { context: 'build', state: 'success', targetUrl: 'file:///etc/passwd' }],
    ])('when a status has %s, then it is refused as INVALID_INPUT and nothing is stored', async (_what, sha, input) => {
      const store = await open();
      expect(isGitHostError(await failureOf(store.set(bed.repo, sha || bed.sha, input)), 'INVALID_INPUT')).toBe(true);
      expect(await store.list(bed.repo, bed.sha)).toEqual([]);
    });

    it('when the repository name could leave the root, then set and list refuse it as INVALID_INPUT', async () => {
      const store = await open();
      const bad = { ...bed.repo, owner: '..' };
      expect(isGitHostError(await failureOf(store.set(bad, bed.sha, { context: 'c', state: 'success' })), 'INVALID_INPUT')).toBe(true);
      expect(isGitHostError(await failureOf(store.list(bad, bed.sha)), 'INVALID_INPUT')).toBe(true);
    });

    it('when the repository is not on the code host, then set refuses it as REPO_NOT_FOUND', async () => {
      const store = await open();
      expect(isGitHostError(await failureOf(store.set(UNKNOWN, bed.sha, { context: 'c', state: 'success' })), 'REPO_NOT_FOUND')).toBe(true);
    });

    it('when two instances write many contexts of one commit at once, then no status is lost', async () => {
      const [a, b] = [await open(), await open()];
      const contexts = Array.from({ length: 40 }, (_, i) => `check-${i}`);
      await Promise.all(contexts.map((context, i) => (i % 2 ? a : b).set(bed.repo, bed.sha, { context, state: 'success' })));
      expect((await a.list(bed.repo, bed.sha)).map((s) => s.context).sort()).toEqual([...contexts].sort());
      expect(await b.list(bed.repo, bed.sha)).toEqual(await a.list(bed.repo, bed.sha));
    });

    it('when two instances update one context at once, then the list holds it once, in the state of the last report', async () => {
      const [a, b] = [await open(), await open()];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).set(bed.repo, bed.sha, { context: 'build', state: i % 3 ? 'pending' : 'failure' }),
        ),
      );
      await a.set(bed.repo, bed.sha, { context: 'build', state: 'success' });
      expect((await b.list(bed.repo, bed.sha)).map((s) => [s.context, s.state])).toEqual([['build', 'success']]);
    });

    it('when another instance sets a status, then a listener here hears the repository and commit', async () => {
      const [writer, reader] = [await open(), await open()];
      const heard: string[] = [];
      const off = reader.onChange((repo, sha) => heard.push(`${repo.name}@${sha}`));
      await stores.listening(reader);
      await writer.set(bed.repo, bed.sha, { context: 'build', state: 'success' });
      await eventually(() => heard.includes(`${bed.repo.name}@${bed.sha}`), 'the other instance heard the change');
      off();
    });

    it('when this instance sets a status, then its own listener hears it by the time set returns', async () => {
      const store = await open();
      const heard: string[] = [];
      store.onChange((_repo, sha) => heard.push(sha));
      await store.set(bed.repo, bed.sha, { context: 'build', state: 'success' });
      expect(heard).toContain(bed.sha);
    });

    it('when a listener unsubscribes, then it hears nothing more', async () => {
      const store = await open();
      const heard: string[] = [];
      const off = store.onChange((_repo, sha) => heard.push(sha));
      off();
      await store.set(bed.repo, bed.sha, { context: 'build', state: 'success' });
      expect(heard).toEqual([]);
    });

    (options.crossProcess ? it : it.skip)(
      'when another OS process reports while this one does, then every status of both is kept',
      async () => {
        const writeFromChild = stores.writeFromChild;
        if (!writeFromChild) throw new Error(`${name} runs the cross-process case but gives no writeFromChild`);
        const store = await open();
        const mine = Array.from({ length: 10 }, (_, i) => `parent-${i}`);
        const theirs = Array.from({ length: 10 }, (_, i) => `child-${i}`);
        await Promise.all([
          writeFromChild(bed.repo, bed.sha, theirs),
          ...mine.map((context) => store.set(bed.repo, bed.sha, { context, state: 'success' })),
        ]);
        expect((await store.list(bed.repo, bed.sha)).map((s) => s.context).sort()).toEqual([...mine, ...theirs].sort());
      },
    );
  });
};
