import { promises as fs, utimesSync } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { isGitHostError } from '../errors';
import { LocalCommitStatusStore } from './statuses';
import { statusFileOf } from './statuses-file';
import { journalFileOf } from './statuses-journal';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const other: RepoRef = { host: 'git.test', owner: 'acme', name: 'gadgets' };

let root: string;
let sha: string;
let gitDir: string;
const stores: LocalCommitStatusStore[] = [];

const open = (opts: Partial<ConstructorParameters<typeof LocalCommitStatusStore>[0]> = {}): LocalCommitStatusStore => {
  const store = new LocalCommitStatusStore({ root, pollMs: 20, discoverMs: 50, ...opts });
  stores.push(store);
  return store;
};

const eventually = async (check: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

beforeEach(async () => {
  root = await makeTempDir();
  ({ sha, gitDir } = await createRepoWithCommits(root, repo));
});

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await removeTempDir(root);
});

describe('LocalCommitStatusStore', () => {
  it('when contexts report and report again, then list holds the latest of each in first-report order', async () => {
    let minute = 0;
    const store = open({ clock: () => new Date(Date.UTC(2026, 0, 1, 10, minute++)) });
    await store.set(repo, sha, { context: 'build', state: 'pending', targetUrl: 'http://ci.test/1' });
    await store.set(repo, sha, { context: 'lint', state: 'success' });
    await store.set(repo, sha, { context: 'build', state: 'failure', targetUrl: 'http://ci.test/1', description: 'exit 1' });
    expect(await store.list(repo, sha)).toEqual([
      {
        context: 'build',
        state: 'failure',
        targetUrl: 'http://ci.test/1',
        description: 'exit 1',
        createdAt: '2026-01-01T10:00:00.000Z',
        updatedAt: '2026-01-01T10:02:00.000Z',
      },
      { context: 'lint', state: 'success', createdAt: '2026-01-01T10:01:00.000Z', updatedAt: '2026-01-01T10:01:00.000Z' },
    ]);
  });

  it('when nothing was reported on a commit, then its list is empty', async () => {
    expect(await open().list(repo, 'a'.repeat(40))).toEqual([]);
  });

  it('when a status is set, then the documented file and a journal line are on disk inside the bare repository', async () => {
    const store = open({ clock: () => new Date('2026-01-01T00:00:00.000Z') });
    await store.set(repo, sha, { context: 'ci/build', state: 'success' });
    const file = path.join(gitDir, 'railyard', 'statuses', sha.slice(0, 2), `${sha}.json`);
    expect(statusFileOf(gitDir, sha)).toBe(file);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({
      version: 1,
      sha,
      statuses: [{ context: 'ci/build', state: 'success', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }],
    });
    const lines = (await fs.readFile(journalFileOf(gitDir), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { sha, context: 'ci/build', state: 'success', at: '2026-01-01T00:00:00.000Z', writer: store.writerId },
    ]);
  });

  it.each([
    ['a short sha', { sha: 'abc123', input: { context: 'c', state: 'success' } }],
    ['an upper-case sha', { sha: 'A'.repeat(40), input: { context: 'c', state: 'success' } }],
    ['an empty context', { sha: undefined, input: { context: ' ', state: 'success' } }],
    ['a context with a newline', { sha: undefined, input: { context: 'a\nb', state: 'success' } }],
    ['an unknown state', { sha: undefined, input: { context: 'c', state: 'passed' } }],
    ['a non-http url', { sha: undefined, input: { context: 'c', state: 'success', targetUrl: 'file:///etc/passwd' } }],
  ])('when given %s, then it is refused as INVALID_INPUT and nothing is written', async (_what, { sha: badSha, input }) => {
    const store = open();
    const err = await store.set(repo, badSha ?? sha, input as never).catch((e: unknown) => e);
    expect(isGitHostError(err, 'INVALID_INPUT')).toBe(true);
    await expect(fs.stat(path.join(gitDir, 'railyard', 'statuses'))).rejects.toThrow();
  });

  it('when the repository does not exist, then set and list answer REPO_NOT_FOUND', async () => {
    const store = open();
    const missing = { ...repo, name: 'nope' };
    expect(
      isGitHostError(await store.set(missing, sha, { context: 'c', state: 'success' }).catch((e: unknown) => e), 'REPO_NOT_FOUND'),
    ).toBe(true);
    expect(isGitHostError(await store.list(missing, sha).catch((e: unknown) => e), 'REPO_NOT_FOUND')).toBe(true);
  });

  it('when the file is damaged, then reading it fails with CORRUPT_STATUS_FILE instead of answering nothing', async () => {
    const file = statusFileOf(gitDir, sha);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '{"version":1,');
    expect(
      isGitHostError(
        await open()
          .list(repo, sha)
          .catch((e: unknown) => e),
        'CORRUPT_STATUS_FILE',
      ),
    ).toBe(true);
  });

  it('when two stores write many contexts of one commit at once, then every context is kept', async () => {
    const [a, b] = [open(), open()];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? a : b).set(repo, sha, { context: `check-${i}`, state: i % 3 === 0 ? 'failure' : 'success' }),
      ),
    );
    const contexts = (await a.list(repo, sha)).map((s) => s.context).sort();
    expect(contexts).toEqual(Array.from({ length: 40 }, (_, i) => `check-${i}`).sort());
  });

  it('when a writer died holding the lock long ago, then the next writer breaks the lock and succeeds', async () => {
    const lock = `${statusFileOf(gitDir, sha)}.lock`;
    await fs.mkdir(path.dirname(lock), { recursive: true });
    await fs.writeFile(lock, '');
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(lock, old, old);
    await open().set(repo, sha, { context: 'build', state: 'success' });
    expect((await open().list(repo, sha)).map((s) => s.state)).toEqual(['success']);
  });

  it('when a status changes, then the same store tells its listeners once, until they unsubscribe', async () => {
    const store = open();
    const heard: string[] = [];
    const off = store.onChange((r, s) => heard.push(`${r.name}@${s}`));
    await store.set(repo, sha, { context: 'build', state: 'pending' });
    await new Promise((r) => setTimeout(r, 150));
    expect(heard).toEqual([`widgets@${sha}`]);
    off();
    await store.set(repo, sha, { context: 'build', state: 'success' });
    expect(heard).toHaveLength(1);
  });

  it('when another store (another process) changes a status, then listeners hear of it through the journal', async () => {
    const { sha: otherSha } = await createRepoWithCommits(root, other);
    const [listener, writer] = [open(), open()];
    const heard: string[] = [];
    listener.onChange((r, s) => heard.push(`${r.name}@${s}`));
    await new Promise((r) => setTimeout(r, 100));
    await writer.set(repo, sha, { context: 'build', state: 'success' });
    await writer.set(other, otherSha, { context: 'build', state: 'failure' });
    await eventually(() => heard.includes(`widgets@${sha}`) && heard.includes(`gadgets@${otherSha}`));
  });

  it('when a repository gets its first status after listening started, then it is discovered and heard', async () => {
    const listener = open();
    const heard: string[] = [];
    listener.onChange((_r, s) => heard.push(s));
    await new Promise((r) => setTimeout(r, 100));
    const { sha: lateSha } = await createRepoWithCommits(root, { ...repo, name: 'late' });
    await open().set({ ...repo, name: 'late' }, lateSha, { context: 'build', state: 'success' });
    await eventually(() => heard.includes(lateSha));
  });

  it('when the journal rotates while a listener follows it, then no change is missed', async () => {
    const listener = open({ pollMs: 5 });
    const writer = open({ journalRotateBytes: 400 });
    const heard = new Set<string>();
    listener.onChange((_r, s) => heard.add(s));
    await new Promise((r) => setTimeout(r, 100));
    const shas = Array.from({ length: 30 }, (_, i) => i.toString(16).padStart(2, '0').repeat(20));
    for (const s of shas) await writer.set(repo, s, { context: 'build', state: 'success' });
    // Thirty appends with their fsyncs can take seconds on a loaded machine: the bound is generous.
    await eventually(() => shas.every((s) => heard.has(s)), 30_000);
    expect((await fs.stat(`${journalFileOf(gitDir)}.1`)).size).toBeGreaterThan(0);
  }, 60_000);

  it('when listening starts, then changes made before are not replayed', async () => {
    const writer = open();
    await writer.set(repo, sha, { context: 'old', state: 'success' });
    const listener = open();
    const heard: string[] = [];
    listener.onChange((_r, s) => heard.push(s));
    await new Promise((r) => setTimeout(r, 200));
    expect(heard).toEqual([]);
  });
});
