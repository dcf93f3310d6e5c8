import type { RepoRef } from '@railyard/domain';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { cliInProcess, cliViaBin } from '../testing';

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const REPO = 'git.test/acme/widgets';

const railyard = (args: string[], gitRoot: string) => cliViaBin(args, { RAILYARD_GIT_ROOT: gitRoot });
const inProcess = (args: string[], gitRoot: string) => cliInProcess(['pr', ...args], { RAILYARD_GIT_ROOT: gitRoot });

describe('railyard pr', () => {
  let root: string;
  let head: string;

  beforeEach(async () => {
    root = await makeTempDir();
    await createRepoWithCommits(root, repo, { files: { 'a.txt': 'a\n' } });
    head = await commitOnBranch(root, repo, {
      branch: 'feature',
      files: { 'f.txt': 'f\n' },
      message: 'Add f',
      author: { name: 'Ada', email: 'ada@example.test' },
    });
  });

  afterEach(() => removeTempDir(root));

  it('when a PR is opened, updated, shown and closed through the real CLI, then each prints the PR as JSON and exits 0', async () => {
    const opened = await railyard(['pr', 'open', '--repo', REPO, '--number', '4', '--head', 'feature', '--base', 'main'], root);
    expect(opened).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(opened.stdout)).toEqual({
      number: 4,
      title: 'Add f',
      author: 'Ada',
      headSha: head,
      baseBranch: 'main',
      headBranch: 'feature',
      state: 'open',
      mergeability: 'mergeable',
    });

    const updated = await railyard(['pr', 'update', '--repo', REPO, '--number', '4', '--title', 'Better title'], root);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ title: 'Better title', headSha: head });

    const closed = await railyard(['pr', 'close', '--repo', REPO, '--number', '4'], root);
    expect(closed.code).toBe(0);

    const shown = await railyard(['pr', 'show', '--repo', REPO, '--number', '4'], root);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ state: 'closed', title: 'Better title', mergeability: 'not_mergeable' });
  });

  it('when the real CLI is given bad input or an unknown PR, then it says why on stderr and exits non-zero', async () => {
    const missing = await railyard(['pr', 'open', '--repo', REPO, '--number', '4'], root);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain('pr open needs --head and --base');

    const unknown = await railyard(['pr', 'show', '--repo', REPO, '--number', '99'], root);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('no PR #99');
  });

  it('when the same number is opened twice, then the second exits 1 and says it is already open', async () => {
    const args = ['open', '--repo', REPO, '--number', '4', '--head', 'feature', '--base', 'main'];
    expect((await inProcess(args, root)).code).toBe(0);

    const again = await inProcess(args, root);

    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toContain('already open');
  });

  it('when the author and title are given, then the PR carries them', async () => {
    const run = await inProcess(
      ['open', '--repo', REPO, '--number', '4', '--head', head, '--base', 'main', '--title', 'T', '--author', 'grace'],
      root,
    );

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ title: 'T', author: 'grace', headSha: head });
  });

  it.each([
    [['open', '--repo', REPO, '--number', '4', '--head', 'feature'], 'pr open needs --head and --base'],
    [['open', '--number', '4', '--head', 'feature', '--base', 'main'], '--repo is required'],
    [['show', '--repo', REPO], '--number is required'],
    [['show', '--repo', 'acme/widgets', '--number', '1'], '--repo must be HOST/OWNER/NAME'],
    [['show', '--repo', '../acme/widgets', '--number', '1'], '--repo must be HOST/OWNER/NAME'],
    [['show', '--repo', REPO, '--number', '0'], '--number must be a positive integer'],
    [['show', '--repo', REPO, '--number', '1e3'], '--number must be a positive integer'],
    [['show', '--repo', REPO, '--number=-1'], '--number must be a positive integer'],
    [['close', '--repo', REPO, '--number', '1', '--head', 'x'], "unknown option '--head'"],
    [['update', '--repo', REPO, '--number', '1'], 'needs at least one of --head, --base, --title'],
    [['merge', '--repo', REPO, '--number', '1'], "unknown command 'merge'"],
    [['show', 'extra', '--repo', REPO, '--number', '1'], "too many arguments for 'show'"],
    [['show', '--repo', REPO, '--number', '1', '--colour'], "unknown option '--colour'"],
    [['open', '--repo', REPO, '--number', '4', '--head', 'feature', '--base', 'a..b'], 'not a valid branch name'],
  ])('when the arguments are %j, then it exits 2 with a usage error', async (args, message) => {
    const run = await inProcess(args, root);

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });

  it.each([
    [['open', '--repo', 'git.test/acme/nope', '--number', '4', '--head', 'feature', '--base', 'main'], 'no repository git.test/acme/nope'],
    [['open', '--repo', REPO, '--number', '4', '--head', 'nope', '--base', 'main'], 'no branch or commit named "nope"'],
    [['open', '--repo', REPO, '--number', '4', '--head', 'feature', '--base', 'release'], 'base branch "release" does not exist'],
    [['update', '--repo', REPO, '--number', '4', '--title', 'x'], 'no PR #4'],
    [['close', '--repo', REPO, '--number', '4'], 'no PR #4'],
  ])('when the arguments are %j, then it exits 1 and says why', async (args, message) => {
    const run = await inProcess(args, root);

    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain(message);
  });

  it('when asked for help, then it prints the usage and exits 0', async () => {
    const run = await inProcess(['--help'], root);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('open [options]');
    expect(run.stderr).toBe('');
  });
});
