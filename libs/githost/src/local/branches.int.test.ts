import type { MergeMethod, RepoRef } from '@railyard/domain';
import { branchSha, commitOnBranch, repoBed, treeOf } from '@railyard/testkit';
import type { GitHostError } from '../errors';
import { failsWith } from './testing/fails-with';
import { LocalGitWriter } from './local-git-writer';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };

const bed = repoBed(repo, { files: { 'a.txt': 'a\n' } });

describe('LocalGitWriter branch moves', () => {
  let writer: LocalGitWriter;

  beforeEach(async () => {
    writer = new LocalGitWriter({ root: bed.root });
  });

  it.each<MergeMethod>(['squash', 'merge_commit', 'rebase'])(
    'when a tested %s stack is merged, then the target branch holds exactly the tested tree',
    async (method) => {
      const one = await commitOnBranch(bed.root, repo, { branch: 'pr1', files: { 'b.txt': 'b\n' } });
      const two = await commitOnBranch(bed.root, repo, { branch: 'pr2', files: { 'c.txt': 'c\n', 'a.txt': null } });
      const built = await writer.buildTestBranch(repo, {
        baseSha: bed.base,
        stack: [
          { number: 1, headSha: one },
          { number: 2, headSha: two },
        ],
        method,
        testRunId: 't',
      });
      if (!built.ok) throw new Error('expected the stack to build');

      // The PR ahead merges first (its step), then the PR under test (the whole branch).
      await writer.moveBranch(repo, 'main', built.steps[0]?.sha ?? '', bed.base);
      expect(await treeOf(bed.root, repo, 'main')).toBe(built.steps[0]?.tree);
      await writer.moveBranch(repo, 'main', built.sha, built.steps[0]?.sha ?? '');

      expect(await branchSha(bed.root, repo, 'main')).toBe(built.sha);
      expect(await treeOf(bed.root, repo, 'main')).toBe(built.tree);
    },
  );

  it('when someone pushes to the target between test and merge, then the move fails with REF_MOVED and their push stays', async () => {
    const head = await commitOnBranch(bed.root, repo, { branch: 'pr1', files: { 'b.txt': 'b\n' } });
    const built = await writer.buildTestBranch(repo, {
      baseSha: bed.base,
      stack: [{ number: 1, headSha: head }],
      method: 'squash',
      testRunId: 't',
    });
    if (!built.ok) throw new Error('expected the stack to build');
    const pushed = await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'z.txt': 'pushed\n' } });

    const err = await failsWith(writer.moveBranch(repo, 'main', built.sha, bed.base), 'REF_MOVED');

    expect(err.message).toContain(pushed);
    expect(await branchSha(bed.root, repo, 'main')).toBe(pushed);
  });

  it('when two moves race from the same expected value, then exactly one wins', async () => {
    const a = await commitOnBranch(bed.root, repo, { branch: 'a', files: { 'a.txt': 'from a\n' } });
    const b = await commitOnBranch(bed.root, repo, { branch: 'b', files: { 'a.txt': 'from b\n' } });

    const results = await Promise.allSettled([writer.moveBranch(repo, 'main', a, bed.base), writer.moveBranch(repo, 'main', b, bed.base)]);

    const winners = results.filter((r) => r.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const loser = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(['REF_MOVED', 'LOCKED']).toContain((loser?.reason as GitHostError).code);
    expect([a, b]).toContain(await branchSha(bed.root, repo, 'main'));
  });

  it('when the expected old value is null, then the branch is created, and creating it again fails', async () => {
    await writer.moveBranch(repo, 'release/1.0', bed.base, null);

    expect(await branchSha(bed.root, repo, 'release/1.0')).toBe(bed.base);
    await failsWith(writer.moveBranch(repo, 'release/1.0', bed.base, null), 'REF_MOVED');
  });

  it('when a branch is deleted, then it is gone, a second delete answers false, and a stale expected value is refused', async () => {
    await writer.moveBranch(repo, 'temp', bed.base, null);
    expect(await writer.deleteBranch(repo, 'temp', bed.base)).toBe(true);
    expect(await branchSha(bed.root, repo, 'temp')).toBeNull();
    expect(await writer.deleteBranch(repo, 'temp')).toBe(false);

    const moved = await commitOnBranch(bed.root, repo, { branch: 'other', files: { 'o.txt': 'o\n' } });
    await failsWith(writer.deleteBranch(repo, 'other', bed.base), 'REF_MOVED');
    expect(await branchSha(bed.root, repo, 'other')).toBe(moved);
  });

  it('when names or ids are malformed, then nothing moves', async () => {
    await failsWith(writer.moveBranch(repo, '../main', bed.base, bed.base), 'INVALID_INPUT');
    await failsWith(writer.moveBranch(repo, 'main', 'HEAD', bed.base), 'INVALID_INPUT');
    await failsWith(writer.moveBranch(repo, 'main', bed.base, 'main'), 'INVALID_INPUT');
    await failsWith(writer.moveBranch(repo, 'main', 'f'.repeat(40), bed.base), 'GIT_FAILED');
    expect(await branchSha(bed.root, repo, 'main')).toBe(bed.base);
  });
});
