import type { RepoRef } from '@railyard/domain';
import { LocalGitWriter } from './local-git-writer';
import { branchSha, commitOnBranch, createRepoWithCommits, gitDirOf, makeTempDir, removeTempDir, treeOf } from '@railyard/testkit';
import { copyCommitsOnto, isAncestor } from './landing';

const REPO: RepoRef = { host: 'git.local', owner: 'acme', name: 'engine' };
let root: string;

beforeEach(async () => {
  root = await makeTempDir('railyard-engine-git-');
  await createRepoWithCommits(root, REPO, { files: { 'README.md': '# r\n' } });
  for (const n of [1, 2]) await commitOnBranch(root, REPO, { branch: `pr-${n}`, files: { [`f${n}.txt`]: `${n}\n` }, message: `PR ${n}` });
});
afterEach(() => removeTempDir(root));

const heads = async () =>
  Promise.all([1, 2].map(async (n) => ({ number: n, headSha: (await branchSha(root, REPO, `pr-${n}`)) as string })));

describe.each(['squash', 'merge_commit', 'rebase'] as const)('copyCommitsOnto (%s)', (method) => {
  it('when PR 1 merged from its own run, then PR 2 copied from the stacked run lands on it with exactly the tested tree, the same way twice', async () => {
    // Two builds a minute apart, as two runs are: their commits for PR 1 differ, their trees do not.
    const writer = new LocalGitWriter({ root, now: () => new Date('2025-06-01T10:00:00Z') });
    const later = new LocalGitWriter({ root, now: () => new Date('2025-06-01T10:01:00Z') });
    const base = (await branchSha(root, REPO, 'main')) as string;
    const [pr1, pr2] = await heads();
    const own = await writer.buildTestBranch(REPO, { baseSha: base, stack: [pr1!], method, testRunId: 'own-1' });
    const stacked = await later.buildTestBranch(REPO, { baseSha: base, stack: [pr1!, pr2!], method, testRunId: 'stacked-2' });
    if (!own.ok || !stacked.ok) throw new Error('unexpected conflict');
    await writer.moveBranch(REPO, 'main', own.sha, base);
    expect(own.sha).not.toBe(stacked.steps[0]?.sha);
    expect(own.tree).toBe(stacked.steps[0]?.tree);

    const gitDir = gitDirOf(root, REPO);
    const copied = await copyCommitsOnto(gitDir, stacked.steps[0]!.sha, stacked.sha, own.sha);
    expect(await treeOf(root, REPO, copied)).toBe(stacked.tree);
    expect(await isAncestor(gitDir, own.sha, copied)).toBe(true);
    expect(await copyCommitsOnto(gitDir, stacked.steps[0]!.sha, stacked.sha, own.sha)).toBe(copied);
  });
});
