import type { RepoRef } from '@railyard/domain';
import { branchSha, commitOnBranch, gitDirOf, repoBed } from '@railyard/testkit';
import { isGitHostError } from '../errors';
import { runGitHere } from './git';
import { GitHelper, runGit } from './git-helper';
import { mergeTree } from './merge-tree';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = repoBed(repo, { files: { 'a.txt': 'a\n' } });

describe('GitHelper', () => {
  let helper: GitHelper;
  beforeEach(() => (helper = new GitHelper()));
  afterEach(() => helper.close());

  it('when git runs through the helper, then the answers are those of git run from this process', async () => {
    const gitDir = gitDirOf(bed.root, repo);
    const head = (await branchSha(bed.root, repo, 'main')) as string;
    const feature = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'b.txt': 'b\n' } });
    expect(await helper.run(gitDir, ['rev-parse', 'main'])).toEqual(await runGitHere(gitDir, ['rev-parse', 'main']));
    expect(await helper.run(gitDir, ['hash-object', '--stdin'], { input: 'x\n' })).toEqual(
      await runGitHere(gitDir, ['hash-object', '--stdin'], { input: 'x\n' }),
    );
    expect(await mergeTree(gitDir, head, feature, { run: helper.run })).toEqual(
      await mergeTree(gitDir, head, feature, { run: runGitHere }),
    );
  });

  it('when git exits with a code that is not accepted, then the run fails with GIT_FAILED as git run from this process does', async () => {
    const gitDir = gitDirOf(bed.root, repo);
    const failed = await helper.run(gitDir, ['rev-parse', '--verify', 'no-such-branch']).catch((e: unknown) => e);
    expect(isGitHostError(failed, 'GIT_FAILED')).toBe(true);
    expect(await helper.run(gitDir, ['rev-parse', '--verify', '--quiet', 'no-such-branch'], { okCodes: [1] })).toMatchObject({ code: 1 });
  });

  it('when the helper dies, then its runs fail and the next run starts a new one', async () => {
    const gitDir = gitDirOf(bed.root, repo);
    await helper.run(gitDir, ['rev-parse', 'main']);
    const first = helper.pid as number;
    // A run that stays in flight: git runs an alias that sleeps.
    const running = helper.run(gitDir, ['-c', 'alias.linger=!sleep 2', 'linger']).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    process.kill(first, 'SIGKILL');
    expect(isGitHostError(await running, 'GIT_FAILED')).toBe(true);
    expect((await helper.run(gitDir, ['rev-parse', 'main'])).code).toBe(0);
    expect(helper.pid).not.toBe(first);
  });

  it('when runGit runs git, then its parent is one helper process, never this one', async () => {
    const gitDir = gitDirOf(bed.root, repo);
    // The alias's shell is git's child, so its parent id ($PPID) is git's own; git's parent is what started it.
    const parentOfGit = async (): Promise<string> =>
      (await runGit(gitDir, ['-c', 'alias.parent=!ps -o ppid= -p $PPID', 'parent'])).stdout.trim();
    const first = await parentOfGit();
    expect(first).not.toBe(String(process.pid));
    expect(await parentOfGit()).toBe(first);
  });
});
