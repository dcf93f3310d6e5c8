import type { CodeHost, HostEvent } from '@railyard/queue-driver';
import type { RepoRef } from '@railyard/domain';

/**
 * What a code host under test must let the contract do besides the port itself: what a person or a
 * CI does on the forge (open and push PRs, push to a branch, post a status). The local host does it
 * with git and its admin; a GitHub adapter over a fake GitHub does it through the fake.
 */
export interface CodeHostBed {
  host: CodeHost;
  repo: RepoRef;
  /** The branch every PR targets; it exists, holding one commit. */
  base: string;
  /** Opens PR `number` whose head adds `files` on top of the base's head now; answers the head sha. */
  openPr(number: number, files: Record<string, string>): Promise<string>;
  /** Pushes a commit changing `files` onto the PR's head (through the forge, as a user would). */
  pushToPr(number: number, files: Record<string, string>): Promise<string>;
  /** Pushes a commit changing `files` onto `branch`; answers its sha. */
  pushToBranch(branch: string, files: Record<string, string>): Promise<string>;
  postStatus(sha: string, context: string, state: 'pending' | 'success' | 'failure'): Promise<void>;
  /** The content of `file` at commit `sha`, or null. */
  fileAt(sha: string, file: string): Promise<string | null>;
  close(): Promise<void>;
}

const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/**
 * The CodeHost contract (libs/queue-driver/src/host/port.ts): every adapter passes it, so the engine can
 * rely on the same answers from the local host, a fake GitHub and the real one.
 */
export const codeHostContract = (name: string, makeBed: () => Promise<CodeHostBed>): void => {
  describe(`CodeHost contract: ${name}`, () => {
    let bed: CodeHostBed;
    beforeEach(async () => {
      bed = await makeBed();
    });
    afterEach(() => bed.close());

    const head = async (): Promise<{ sha: string; tree: string }> => {
      const h = await bed.host.branchHead(bed.repo, bed.base);
      if (!h) throw new Error('the base branch is missing');
      return h;
    };
    /** A test branch of the PRs `stack` (number → head) on `baseSha`, named after the last one. */
    const build = (baseSha: string, stack: [number, string][], testRunId: string, method: 'squash' | 'merge_commit' = 'squash') =>
      bed.host.buildTestBranch(bed.repo, {
        baseSha,
        stack: stack.map(([number, headSha]) => ({ number, headSha })),
        method,
        testRunId,
        prNumber: (stack.at(-1) as [number, string])[0],
      });

    it('when a PR is open, then it reads with its head and base; an unknown PR reads as null', async () => {
      const sha = await bed.openPr(1, { 'one.txt': '1\n' });
      expect(await bed.host.pullRequest(bed.repo, 1)).toMatchObject({ number: 1, headSha: sha, baseBranch: bed.base, state: 'open' });
      expect(await bed.host.pullRequest(bed.repo, 404)).toBeNull();
      expect(await bed.host.branchHead(bed.repo, 'no-such-branch')).toBeNull();
    });

    it('when mergeability is asked, then the answer is known at once or arrives as an event: mergeable, or not for a conflict', async () => {
      await bed.pushToBranch(bed.base, { 'shared.txt': 'base\n' });
      const clean = await bed.openPr(1, { 'one.txt': '1\n' });
      const clashing = await bed.openPr(2, { 'shared.txt': 'pr 2\n' });
      await bed.pushToBranch(bed.base, { 'shared.txt': 'base moved\n' });
      const heard = new Map<number, string>();
      const off = bed.host.watch(bed.repo, [bed.base], (e: HostEvent) => {
        if (e.kind === 'mergeability') heard.set(e.number, e.mergeability);
      });
      try {
        const answer = (n: number, sha: string) =>
          until(`mergeability of PR ${n}`, async () => {
            const now = await bed.host.mergeability(bed.repo, n, sha);
            if (now === 'mergeable' || now === 'not_mergeable') return now;
            return heard.get(n);
          });
        expect(await answer(1, clean)).toBe('mergeable');
        expect(await answer(2, clashing)).toBe('not_mergeable');
      } finally {
        off();
      }
    });

    it('when a test branch is built from a stack, then it is listed, holds every PR, and lands as a fast-forward', async () => {
      const base = await head();
      const one = await bed.openPr(1, { 'one.txt': '1\n' });
      const two = await bed.openPr(2, { 'two.txt': '2\n' });
      const built = await build(
        base.sha,
        [
          [1, one],
          [2, two],
        ],
        'run-1',
      );
      if (!built.ok) throw new Error(`unexpected conflict ${JSON.stringify(built.conflict)}`);
      expect(built.branch).toBe('railyard-merge/pr-2/run-1');
      expect(built.steps.map((s) => s.number)).toEqual([1, 2]);
      expect(await bed.fileAt(built.sha, 'one.txt')).toBe('1\n');
      expect(await bed.fileAt(built.sha, 'two.txt')).toBe('2\n');
      expect(await bed.host.listTestBranches(bed.repo)).toEqual([{ branch: built.branch, testRunId: 'run-1' }]);

      const first = built.steps[0] as { sha: string; tree: string };
      expect(await bed.host.land(bed.repo, { branch: bed.base, sha: first.sha, expected: base.sha })).toEqual({ landed: true });
      expect(await head()).toEqual({ sha: first.sha, tree: first.tree });

      await bed.host.deleteBranch(bed.repo, built.branch);
      await bed.host.deleteBranch(bed.repo, built.branch);
      expect(await bed.host.listTestBranches(bed.repo)).toEqual([]);
    });

    it('when a PR of the stack does not apply, then the build names it and what it clashes with, and creates no branch', async () => {
      const base = await head();
      const one = await bed.openPr(1, { 'same.txt': 'one\n' });
      const two = await bed.openPr(2, { 'same.txt': 'two\n' });
      const built = await build(
        base.sha,
        [
          [1, one],
          [2, two],
        ],
        'run-2',
        'merge_commit',
      );
      expect(built).toMatchObject({ ok: false, conflict: { number: 2, with: 1 } });
      expect(await bed.host.listTestBranches(bed.repo)).toEqual([]);
    });

    it('when the branch moved since the engine read it, then a landing changes nothing and says where the branch is', async () => {
      const base = await head();
      const one = await bed.openPr(1, { 'one.txt': '1\n' });
      const built = await build(base.sha, [[1, one]], 'run-3');
      if (!built.ok) throw new Error('unexpected conflict');
      const pushed = await bed.pushToBranch(bed.base, { 'hotfix.txt': 'hot\n' });
      expect(await bed.host.land(bed.repo, { branch: bed.base, sha: built.sha, expected: base.sha })).toEqual({
        landed: false,
        actual: pushed,
      });
      expect((await head()).sha).toBe(pushed);
    });

    it('when the target holds the tree the run stood on under other commits, then the copied commit keeps the tested tree', async () => {
      const base = await head();
      const one = await bed.openPr(1, { 'one.txt': '1\n' });
      const built = await build(base.sha, [[1, one]], 'run-4');
      if (!built.ok) throw new Error('unexpected conflict');
      const copied = await bed.host.carryOnto(bed.repo, { mode: 'copy', from: base.sha, to: built.sha, onto: base.sha });
      if (!copied.ok) throw new Error('copy failed');
      expect(await bed.host.treeOf(bed.repo, copied.sha)).toBe(built.tree);
      expect(await bed.host.isAncestor(bed.repo, base.sha, copied.sha)).toBe(true);
    });

    it('when an up-to-date PR merges directly, then the target holds its tree and the PR reads merged', async () => {
      const base = await head();
      const one = await bed.openPr(1, { 'one.txt': '1\n' });
      expect(await bed.host.isAncestor(bed.repo, base.sha, one)).toBe(true);
      const sha = await bed.host.directMergeCommit(bed.repo, {
        baseSha: base.sha,
        headSha: one,
        prNumber: 1,
        title: 'One',
        method: 'squash',
      });
      expect(await bed.host.land(bed.repo, { branch: bed.base, sha, expected: base.sha })).toEqual({ landed: true });
      expect((await head()).tree).toBe(await bed.host.treeOf(bed.repo, one));
      await bed.host.markMerged(bed.repo, 1);
      await bed.host.markMerged(bed.repo, 1);
      await until('the PR to read merged', async () => ((await bed.host.pullRequest(bed.repo, 1))?.state === 'merged' ? true : undefined));
    });

    it('when statuses are posted on a commit, then each context reads back with its latest state, and the change is announced', async () => {
      const one = await bed.openPr(1, { 'one.txt': '1\n' });
      const heard: string[] = [];
      const off = bed.host.watch(bed.repo, [bed.base], (e) => {
        if (e.kind === 'status' && e.sha === one) heard.push(e.sha);
      });
      try {
        await bed.postStatus(one, 'tests', 'pending');
        await bed.postStatus(one, 'tests', 'success');
        await bed.postStatus(one, 'lint', 'failure');
        const statuses = await bed.host.statuses(bed.repo, one);
        expect(statuses.map((s) => [s.context, s.state])).toEqual([
          ['tests', 'success'],
          ['lint', 'failure'],
        ]);
        await until('a status event', async () => (heard.length > 0 ? true : undefined));
      } finally {
        off();
      }
    });

    it('when the base is pushed to or a PR changes, then the host announces it', async () => {
      await bed.openPr(1, { 'one.txt': '1\n' });
      const events: HostEvent[] = [];
      const off = bed.host.watch(bed.repo, [bed.base], (e) => events.push(e));
      try {
        // A watch may take a moment to arm (file notifications, a webhook subscription).
        await new Promise((r) => setTimeout(r, 200));
        await bed.pushToBranch(bed.base, { 'hotfix.txt': 'hot\n' });
        await until('a branch event', async () => (events.some((e) => e.kind === 'branch' && e.branch === bed.base) ? true : undefined));
        await bed.pushToPr(1, { 'one.txt': 'again\n' });
        await until('a pull event', async () => (events.some((e) => e.kind === 'pull' && e.number === 1) ? true : undefined));
      } finally {
        off();
      }
    });
  });
};
