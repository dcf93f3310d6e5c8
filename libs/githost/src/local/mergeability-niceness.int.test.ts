import type { RepoRef } from '@railyard/domain';
import { commitOnBranch, openPr, repoBed } from '@railyard/testkit';
import { runGit } from './git-helper';
import { LocalGitHost } from './local-git-host';

jest.mock('./git-helper', () => {
  const actual = jest.requireActual<typeof import('./git-helper')>('./git-helper');
  return { ...actual, runGit: jest.fn(actual.runGit) };
});

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = repoBed(repo, { files: { 'a.txt': 'a\n' } });

describe('LocalGitHost niceness', () => {
  it('when the host is given a niceness, then the merge that works out a mergeability runs with it', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'b.txt': 'b\n' } });
    await openPr(bed.root, { repo, number: 1, head: 'feature' });
    // The answer the admin stored when it opened the PR goes stale: the host must merge again.
    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'c.txt': 'c\n' } });
    const host = new LocalGitHost({ root: bed.root, niceness: 10 });
    jest.mocked(runGit).mockClear();
    try {
      expect((await host.getPullRequest(repo, 1))?.mergeability).toBe('mergeable');
    } finally {
      await host.close();
    }
    const merges = jest.mocked(runGit).mock.calls.filter(([, args]) => args[0] === 'merge-tree');
    expect(merges).toHaveLength(1);
    expect(merges[0]?.[2]).toMatchObject({ niceness: 10 });
  });
});
