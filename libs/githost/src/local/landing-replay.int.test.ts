import type { RepoRef } from '@railyard/domain';
import { LocalGitWriter } from './local-git-writer';
import { branchSha, commitOnBranch, createRepoWithCommits, fileAt, gitDirOf, makeTempDir, removeTempDir, treeOf } from '@railyard/testkit';
import { replayCommitsOnto } from './landing';

const REPO: RepoRef = { host: 'git.local', owner: 'acme', name: 'lanes' };
let root: string;

beforeEach(async () => {
  root = await makeTempDir('railyard-engine-replay-');
  await createRepoWithCommits(root, REPO, { files: { 'README.md': '# r\n', 'a/lib.txt': 'a1\nline\n' } });
  // PR 1 works in area a over two commits (one adds a line the next removes); PR 2 works in area b.
  await commitOnBranch(root, REPO, { branch: 'pr-1', files: { 'a/lib.txt': 'a1\nline\nextra\n' }, message: 'PR 1 first' });
  await commitOnBranch(root, REPO, { branch: 'pr-1', files: { 'a/lib.txt': 'a2\nline\n', 'a/new.txt': 'n\n' }, message: 'PR 1 second' });
  await commitOnBranch(root, REPO, { branch: 'pr-2', files: { 'b/other.txt': 'b\n' }, message: 'PR 2' });
});
afterEach(() => removeTempDir(root));

const head = async (n: number) => ({ number: n, headSha: (await branchSha(root, REPO, `pr-${n}`)) as string });

describe.each(['squash', 'merge_commit', 'rebase'] as const)('replayCommitsOnto (%s)', (method) => {
  it('when another lane merged since the run started, then the PR lands on top of it with exactly its own changes', async () => {
    const writer = new LocalGitWriter({ root });
    const base = (await branchSha(root, REPO, 'main')) as string;
    const own = await writer.buildTestBranch(REPO, { baseSha: base, stack: [await head(1)], method, testRunId: 'run-1' });
    const other = await writer.buildTestBranch(REPO, { baseSha: base, stack: [await head(2)], method, testRunId: 'run-2' });
    if (!own.ok || !other.ok) throw new Error('unexpected conflict');
    await writer.moveBranch(REPO, 'main', other.sha, base);

    const replayed = await replayCommitsOnto(gitDirOf(root, REPO), base, own.sha, other.sha);
    if (!replayed.ok) throw new Error('unexpected conflict');
    expect(await fileAt(root, REPO, replayed.sha, 'a/lib.txt')).toBe('a2\nline\n');
    expect(await fileAt(root, REPO, replayed.sha, 'a/new.txt')).toBe('n\n');
    expect(await fileAt(root, REPO, replayed.sha, 'b/other.txt')).toBe('b\n');
    expect(await replayCommitsOnto(gitDirOf(root, REPO), base, own.sha, other.sha)).toEqual(replayed);
  });

  it('when the target holds the run base tree, then the replay is exactly the tested tree', async () => {
    const writer = new LocalGitWriter({ root });
    const base = (await branchSha(root, REPO, 'main')) as string;
    const own = await writer.buildTestBranch(REPO, { baseSha: base, stack: [await head(1)], method, testRunId: 'run-1' });
    if (!own.ok) throw new Error('unexpected conflict');
    const replayed = await replayCommitsOnto(gitDirOf(root, REPO), base, own.sha, base);
    expect(replayed.ok && (await treeOf(root, REPO, replayed.sha))).toBe(own.tree);
  });
});

describe('replayCommitsOnto on a conflict', () => {
  it('when the target changed the same lines meanwhile, then it names the files and moves nothing', async () => {
    const writer = new LocalGitWriter({ root });
    const base = (await branchSha(root, REPO, 'main')) as string;
    const own = await writer.buildTestBranch(REPO, { baseSha: base, stack: [await head(1)], method: 'squash', testRunId: 'run-1' });
    if (!own.ok) throw new Error('unexpected conflict');
    const moved = await commitOnBranch(root, REPO, {
      branch: 'main',
      files: { 'a/lib.txt': 'changed elsewhere\nline\n' },
      message: 'other lane',
    });
    expect(await replayCommitsOnto(gitDirOf(root, REPO), base, own.sha, moved)).toEqual({ ok: false, paths: ['a/lib.txt'] });
    expect(await branchSha(root, REPO, 'main')).toBe(moved);
  });
});
