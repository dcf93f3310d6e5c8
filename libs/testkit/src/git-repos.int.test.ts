import type { RepoRef } from '@railyard/domain';
import { branchSha, commitOnBranch, createRepoWithCommits, fileAt, treeOf } from './git-repos';
import { makeTempDir, removeTempDir } from './temp-dir';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'kit' };

describe('testkit git helpers', () => {
  let root: string;

  beforeEach(async () => {
    root = await makeTempDir();
  });

  afterEach(() => removeTempDir(root));

  it('when a repository is created with files, then main holds them in one commit', async () => {
    const { sha } = await createRepoWithCommits(root, repo, { files: { 'README.md': 'hi\n', 'src/deep/a.ts': 'a\n' } });

    expect(await branchSha(root, repo, 'main')).toBe(sha);
    expect(await fileAt(root, repo, sha, 'src/deep/a.ts')).toBe('a\n');
  });

  it('when a commit changes, adds and deletes files on a new branch, then the branch starts from main and main stays', async () => {
    const { sha: main } = await createRepoWithCommits(root, repo, { files: { 'keep.txt': 'k\n', 'gone.txt': 'g\n' } });

    const sha = await commitOnBranch(root, repo, {
      branch: 'topic/x',
      files: { 'keep.txt': 'k2\n', 'gone.txt': null, 'new/n.txt': 'n\n' },
    });

    expect(await fileAt(root, repo, sha, 'keep.txt')).toBe('k2\n');
    expect(await fileAt(root, repo, sha, 'gone.txt')).toBeNull();
    expect(await fileAt(root, repo, sha, 'new/n.txt')).toBe('n\n');
    expect(await branchSha(root, repo, 'main')).toBe(main);
    expect(await treeOf(root, repo, sha)).not.toBe(await treeOf(root, repo, main));
  });
});
