import type { MergeMethod, RepoRef } from '@railyard/domain';
import { commitOnBranch, fileAt, repoBed, standInParentCounts } from '@railyard/testkit';
import { runGit } from './git-helper';
import { LocalGitWriter } from './local-git-writer';
import { StackPrefixes } from './stack-prefixes';
import { buildTestBranch, type BuildTestBranchResult, type StackedPullRequest } from './test-branch';

/** The run behind reuses the commits the run ahead wrote for the same stack (stack-prefixes.ts). */

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = repoBed(repo, { files: { 'a.txt': 'a\n' } });

const built = (result: BuildTestBranchResult): Extract<BuildTestBranchResult, { ok: true }> => {
  if (!result.ok) throw new Error(`expected a test branch, got a conflict: ${JSON.stringify(result.conflict)}`);
  return result;
};

describe('test branches reuse the stack the run ahead built', () => {
  let writer: LocalGitWriter;
  let stack: StackedPullRequest[];
  beforeEach(async () => {
    // A clock that moves a minute per build: without reuse, equal stacks would get new commits.
    let minute = 0;
    writer = new LocalGitWriter({ root: bed.root, now: () => new Date(Date.UTC(2025, 2, 1, 12, minute++)) });
    stack = [];
    for (const n of [1, 2, 3])
      stack.push({ number: n, headSha: await commitOnBranch(bed.root, repo, { branch: `pr${n}`, files: { [`f${n}.txt`]: `${n}\n` } }) });
  });
  const build = async (prs: StackedPullRequest[], testRunId: string, method: MergeMethod = 'squash') =>
    built(await writer.buildTestBranch(repo, { baseSha: bed.base, stack: prs, method, testRunId }));

  it.each<MergeMethod>(['squash', 'merge_commit', 'rebase'])(
    'when the run behind stacks its PR on the run ahead’s PRs (%s), then its branch holds the run ahead’s commits and only its own is new',
    async (method) => {
      const ahead = await build(stack.slice(0, 2), 'ahead', method);
      const behind = await build(stack, 'behind', method);

      expect(behind.steps.slice(0, 2)).toEqual(ahead.steps);
      const parent = (await runGit(bed.gitDir, ['rev-parse', `${behind.sha}^1`])).stdout.trim();
      expect(parent).toBe(ahead.sha);
      expect(await fileAt(bed.root, repo, behind.sha, 'f3.txt')).toBe('3\n');
      expect(await fileAt(bed.root, repo, behind.sha, 'f1.txt')).toBe('1\n');
    },
  );

  it('when the same stack is built again, then the commit under test is new and only what is stacked under it is reused', async () => {
    const first = await build(stack, 'first');
    const again = await build(stack, 'again');

    expect(again.sha).not.toBe(first.sha);
    expect(again.tree).toBe(first.tree);
    expect(again.steps.slice(0, 2)).toEqual(first.steps.slice(0, 2));
  });

  it('when a PR ahead has a new head, then nothing from it on is reused', async () => {
    const first = await build(stack, 'first');
    const moved = { number: 1, headSha: await commitOnBranch(bed.root, repo, { branch: 'pr1', files: { 'f1.txt': 'one\n' } }) };

    const again = await build([moved, ...stack.slice(1)], 'again');

    expect(again.steps.map((s) => s.sha).filter((sha) => first.steps.some((s) => s.sha === sha))).toEqual([]);
    expect(await fileAt(bed.root, repo, again.sha, 'f1.txt')).toBe('one\n');
  });

  it('when the same stack is built on another base, then nothing is reused', async () => {
    const first = await build(stack.slice(0, 2), 'first');
    const base = await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'z.txt': 'z\n' } });

    const again = built(await writer.buildTestBranch(repo, { baseSha: base, stack, method: 'squash', testRunId: 'again' }));

    expect(again.steps.map((s) => s.sha).filter((sha) => first.steps.some((s) => s.sha === sha))).toEqual([]);
  });

  it.each<MergeMethod>(['squash', 'merge_commit', 'rebase'])(
    'when the target moved onto a commit the run ahead wrote (%s), then the run behind continues that stack and only its own commit is new',
    async (method) => {
      const ahead = await build(stack, 'ahead', method);
      const landed = ahead.steps[0]?.sha as string;
      const four = { number: 4, headSha: await commitOnBranch(bed.root, repo, { branch: 'pr4', files: { 'f4.txt': '4\n' } }) };

      const behind = built(
        await writer.buildTestBranch(repo, { baseSha: landed, stack: [...stack.slice(1), four], method, testRunId: 'behind' }),
      );

      expect(behind.steps.slice(0, 2)).toEqual(ahead.steps.slice(1));
      expect(await fileAt(bed.root, repo, behind.sha, 'f4.txt')).toBe('4\n');
      expect(await fileAt(bed.root, repo, behind.sha, 'f1.txt')).toBe('1\n');
    },
  );

  it('when a round’s runs are built at once, then each stacks the commits the runs ahead are writing, and each PR is merged once', async () => {
    const round = await Promise.all([1, 2, 3].map((n) => build(stack.slice(0, n), `run-${n}`)));

    // Run n's steps before its own are the commits runs 1..n-1 wrote for themselves.
    expect(round[1]?.steps[0]).toEqual(round[0]?.steps[0]);
    expect(round[2]?.steps.slice(0, 2)).toEqual([round[0]?.steps[0], round[1]?.steps[1]]);
    const squashes = (await runGit(bed.gitDir, ['log', '--format=%s', '--all'])).stdout.split('\n').filter((s) => / \(#\d\)$/.test(s));
    expect(squashes.sort()).toEqual(['change f1.txt (#1)', 'change f2.txt (#2)', 'change f3.txt (#3)']);
  });
});

describe('a queue that keeps merging onto its own commits', () => {
  const committer = { name: 'Railyard', email: 'railyard@localhost' };
  /** Each PR merges in turn: the next build's base is the commit the last one wrote, as after a landing. */
  const mergeInTurn = async (prefixes: StackPrefixes, prs: StackedPullRequest[]): Promise<string> => {
    let base = bed.base;
    for (const pr of prs) {
      const ctx = { gitDir: bed.gitDir, committer, prefixes, date: '1740830400 +0000' };
      base = built(await buildTestBranch(ctx, { baseSha: base, stack: [pr], method: 'squash', testRunId: `run-${pr.number}` })).sha;
    }
    return base;
  };
  it('when PR after PR merges, then a squash build carries the heads of the latest merged PRs only', async () => {
    const prs: StackedPullRequest[] = [];
    for (const n of [4, 5, 6, 7, 8, 9])
      prs.push({ number: n, headSha: await commitOnBranch(bed.root, repo, { branch: `pr${n}`, files: { [`f${n}.txt`]: `${n}\n` } }) });

    await mergeInTurn(new StackPrefixes(2_048, 2), prs);

    // The tip itself and the two latest merged heads: without the bound, the last one held six.
    expect(Math.max(...(await standInParentCounts(bed.root, repo)))).toBe(3);
  });

  it('when a PR is built on the branch of the PR merged just before it, then its own change applies once', async () => {
    const first = await commitOnBranch(bed.root, repo, { branch: 'pr1', files: { 'a.txt': 'A\n' } });
    const second = await commitOnBranch(bed.root, repo, { branch: 'pr2', from: 'pr1', files: { 'a.txt': 'A\nB\n' } });
    const prefixes = new StackPrefixes(2_048, 2);
    const landed = await mergeInTurn(prefixes, [
      { number: 1, headSha: first },
      { number: 2, headSha: second },
    ]);

    // Without pr1's head, pr2's merge base would be the target's old head, and pr1's line would clash with its squashed copy.
    expect(await fileAt(bed.root, repo, landed, 'a.txt')).toBe('A\nB\n');
  });

  it('when the stack continued carries more heads than it keeps, then the latest are the ones kept', () => {
    const tip = { sha: 'tip', tree: 't', heads: ['h1', 'h2', 'h3'] };
    const keeping = (n: number): readonly string[] | undefined => {
      const prefixes = new StackPrefixes(2_048, n);
      prefixes.ended('r', 'rebase', 'k', tip);
      return prefixes.continuing('r', 'rebase', 'tip')?.tip.heads;
    };

    expect([keeping(2), keeping(0), keeping(5)]).toEqual([['h2', 'h3'], [], ['h1', 'h2', 'h3']]);
  });
});
