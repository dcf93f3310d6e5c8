import type { MergeMethod, RepoRef } from '@railyard/domain';
import { branchSha, commitOnBranch, fileAt, repoBed, treeOf } from '@railyard/testkit';
import { failsWith } from './testing/fails-with';
import { runGit } from './git-helper';
import { LocalGitWriter } from './local-git-writer';
import type { BuildTestBranchResult, StackedPullRequest } from './test-branch';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const METHODS: MergeMethod[] = ['squash', 'merge_commit', 'rebase'];
const BASE_FILE = 'one\ntwo\nthree\nfour\nfive\n';

const succeeded = (result: BuildTestBranchResult): Extract<BuildTestBranchResult, { ok: true }> => {
  if (!result.ok) throw new Error(`expected a test branch, got a conflict: ${JSON.stringify(result.conflict)}`);
  return result;
};

const bed = repoBed(repo, { files: { 'a.txt': BASE_FILE } });

describe('LocalGitWriter.buildTestBranch', () => {
  let writer: LocalGitWriter;
  const git = async (...args: string[]): Promise<string> => (await runGit(bed.gitDir, args)).stdout.trim();

  beforeEach(async () => {
    writer = new LocalGitWriter({ root: bed.root, now: () => new Date('2025-03-01T12:00:00Z') });
  });

  /** Two independent PRs: #1 edits line one of a.txt and adds b.txt, #2 edits line five. */
  const twoIndependentPrs = async (): Promise<StackedPullRequest[]> => [
    {
      number: 1,
      headSha: await commitOnBranch(bed.root, repo, {
        branch: 'pr1',
        files: { 'a.txt': BASE_FILE.replace('one', 'ONE'), 'b.txt': 'b\n' },
        message: 'First',
      }),
    },
    {
      number: 2,
      headSha: await commitOnBranch(bed.root, repo, { branch: 'pr2', files: { 'a.txt': BASE_FILE.replace('five', 'FIVE') } }),
      title: 'Second',
    },
  ];

  it.each(METHODS)('when two independent PRs are stacked with %s, then the branch holds both changes on the base', async (method) => {
    const stack = await twoIndependentPrs();

    const result = succeeded(await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method, testRunId: 'run-1' }));

    expect(result.branch).toBe('railyard-merge/pr-2/run-1');
    expect(await branchSha(bed.root, repo, 'railyard-merge/pr-2/run-1')).toBe(result.sha);
    expect(await treeOf(bed.root, repo, result.sha)).toBe(result.tree);
    expect(await fileAt(bed.root, repo, result.sha, 'a.txt')).toBe('ONE\ntwo\nthree\nfour\nFIVE\n');
    expect(await fileAt(bed.root, repo, result.sha, 'b.txt')).toBe('b\n');
    expect(result.steps.map((s) => s.number)).toEqual([1, 2]);
    expect(await fileAt(bed.root, repo, result.steps[0]?.sha ?? '', 'a.txt')).toBe('ONE\ntwo\nthree\nfour\nfive\n');
    expect(await git('merge-base', '--is-ancestor', bed.base, result.sha).then(() => true)).toBe(true);
  });

  it('when squashing, then each PR is one single-parent commit titled with its number and authored by the PR author', async () => {
    const stack = await twoIndependentPrs();

    const result = succeeded(await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: 'r' }));

    const [first, second] = result.steps;
    expect(await git('log', '-1', '--format=%P|%s|%an|%cn', first?.sha ?? '')).toBe(`${bed.base}|First (#1)|Test Author|Railyard`);
    expect(await git('log', '-1', '--format=%P|%s', second?.sha ?? '')).toBe(`${first?.sha}|Second (#2)`);
  });

  it('when merging with merge commits, then each step has the previous step and the PR head as parents', async () => {
    const stack = await twoIndependentPrs();

    const result = succeeded(await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'merge_commit', testRunId: 'r' }));

    const [first, second] = result.steps;
    expect(await git('log', '-1', '--format=%P', first?.sha ?? '')).toBe(`${bed.base} ${stack[0]?.headSha}`);
    expect(await git('log', '-1', '--format=%P|%s', second?.sha ?? '')).toBe(`${first?.sha} ${stack[1]?.headSha}|Merge pull request #2`);
  });

  it('when rebasing, then each commit of the PR is replayed in order with its message and author', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'm.txt': 'main moved on\n' } });
    const movedBase = (await branchSha(bed.root, repo, 'main')) ?? '';
    const author = { name: 'Ada', email: 'ada@example.test' };
    await commitOnBranch(bed.root, repo, { branch: 'pr', from: bed.base, files: { 'x.txt': 'x1\n' }, message: 'Add x', author });
    await commitOnBranch(bed.root, repo, { branch: 'pr', files: { 'x.txt': 'x2\n' }, message: 'Change x', author });
    const head = await commitOnBranch(bed.root, repo, {
      branch: 'pr',
      files: { 'a.txt': BASE_FILE.replace('three', 'THREE') },
      message: 'Change a',
      author,
    });

    const result = succeeded(
      await writer.buildTestBranch(repo, { baseSha: movedBase, stack: [{ number: 9, headSha: head }], method: 'rebase', testRunId: 'r' }),
    );

    expect((await git('log', '--format=%s|%an|%cn', `${movedBase}..${result.sha}`)).split('\n')).toEqual([
      'Change a|Ada|Railyard',
      'Change x|Ada|Railyard',
      'Add x|Ada|Railyard',
    ]);
    expect(await git('rev-list', '--merges', `${movedBase}..${result.sha}`)).toBe('');
    expect(await fileAt(bed.root, repo, result.sha, 'x.txt')).toBe('x2\n');
    expect(await fileAt(bed.root, repo, result.sha, 'm.txt')).toBe('main moved on\n');
  });

  it.each(METHODS)('when a PR is built on the PR ahead of it, then %s applies its own change once', async (method) => {
    const first = await commitOnBranch(bed.root, repo, {
      branch: 'pr1',
      files: { 'a.txt': BASE_FILE.replace('one', 'ONE') },
      message: 'First',
    });
    const second = await commitOnBranch(bed.root, repo, {
      branch: 'pr2',
      from: 'pr1',
      files: { 'a.txt': BASE_FILE.replace('one', 'ONE').replace('two', 'TWO') },
      message: 'Second',
    });

    const result = succeeded(
      await writer.buildTestBranch(repo, {
        baseSha: bed.base,
        stack: [
          { number: 1, headSha: first },
          { number: 2, headSha: second },
        ],
        method,
        testRunId: 'r',
      }),
    );

    expect(await fileAt(bed.root, repo, result.sha, 'a.txt')).toBe('ONE\nTWO\nthree\nfour\nfive\n');
    if (method === 'rebase') expect(await git('rev-list', '--count', `${bed.base}..${result.sha}`)).toBe('2');
  });

  it.each(METHODS)('when the PR conflicts with the base, then %s reports the base and the path and creates no branch', async (method) => {
    const head = await commitOnBranch(bed.root, repo, { branch: 'pr', files: { 'a.txt': BASE_FILE.replace('two', 'two (pr)') } });
    const moved = await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'a.txt': BASE_FILE.replace('two', 'two (main)') } });

    const result = await writer.buildTestBranch(repo, { baseSha: moved, stack: [{ number: 4, headSha: head }], method, testRunId: 'r' });

    expect(result).toEqual({ ok: false, conflict: { number: 4, with: 'base', paths: ['a.txt'] } });
    expect(await branchSha(bed.root, repo, 'railyard-merge/pr-4/r')).toBeNull();
  });

  it.each(METHODS)('when the PR conflicts only with a PR ahead, then %s names that PR', async (method) => {
    const prs = await twoIndependentPrs();
    const clash = await commitOnBranch(bed.root, repo, { branch: 'pr3', files: { 'a.txt': BASE_FILE.replace('five', 'five (pr 3)') } });

    const result = await writer.buildTestBranch(repo, {
      baseSha: bed.base,
      stack: [...prs, { number: 3, headSha: clash }],
      method,
      testRunId: 'r',
    });

    expect(result).toEqual({ ok: false, conflict: { number: 3, with: 2, paths: ['a.txt'] } });
  });

  it('when the conflicting PR ahead is not the last one ahead, then it is still the one named', async () => {
    const [first, second] = await twoIndependentPrs();
    const clash = await commitOnBranch(bed.root, repo, { branch: 'pr3', files: { 'a.txt': BASE_FILE.replace('one', 'one (pr 3)') } });
    const stack = [first, second, { number: 3, headSha: clash }].filter((p): p is StackedPullRequest => p !== undefined);

    const result = await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: 'r' });

    expect(result).toEqual({ ok: false, conflict: { number: 3, with: 1, paths: ['a.txt'] } });
  });

  it('when the branch name is explicit, then it names the PR under test even if more PRs follow', async () => {
    const stack = await twoIndependentPrs();

    const result = succeeded(
      await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: 'r', prNumber: 1 }),
    );

    expect(result.branch).toBe('railyard-merge/pr-1/r');
  });

  it('when the test branch already exists, then building it again is refused', async () => {
    const stack = await twoIndependentPrs();
    await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: 'r' });

    await failsWith(writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: 'r' }), 'REF_EXISTS');
  });

  it('when the input is malformed, then it is refused before git runs', async () => {
    const stack = await twoIndependentPrs();
    const pr = stack[0] as StackedPullRequest;
    await failsWith(writer.buildTestBranch(repo, { baseSha: bed.base, stack: [], method: 'squash', testRunId: 'r' }), 'INVALID_INPUT');
    await failsWith(
      writer.buildTestBranch(repo, { baseSha: bed.base, stack: [pr, pr], method: 'squash', testRunId: 'r' }),
      'INVALID_INPUT',
    );
    await failsWith(writer.buildTestBranch(repo, { baseSha: 'main', stack, method: 'squash', testRunId: 'r' }), 'INVALID_INPUT');
    await failsWith(
      writer.buildTestBranch(repo, { baseSha: bed.base, stack: [{ number: 1, headSha: '--all' }], method: 'squash', testRunId: 'r' }),
      'INVALID_INPUT',
    );
    await failsWith(writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: '../x' }), 'INVALID_INPUT');
    await failsWith(
      writer.buildTestBranch({ ...repo, name: 'nope' }, { baseSha: bed.base, stack, method: 'squash', testRunId: 'r' }),
      'REPO_NOT_FOUND',
    );
  });

  it('when the same stack is built twice at one time, then the commits are identical', async () => {
    const stack = await twoIndependentPrs();

    const one = succeeded(await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: 'a' }));
    const two = succeeded(await writer.buildTestBranch(repo, { baseSha: bed.base, stack, method: 'squash', testRunId: 'b' }));

    expect(two.sha).toBe(one.sha);
  });
});
