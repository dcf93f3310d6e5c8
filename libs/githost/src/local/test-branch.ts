import type { MergeMethod } from '@railyard/domain';
import { GitHostError } from '../errors';
import { commitsToReplay, commitTree, treeOfCommit, type Identity } from './commits';
import { runGit } from './git-helper';
import { mergeTree } from './merge-tree';
import { isObjectId, isValidBranchName, isValidPrNumber } from './names';
import { commitSummary } from './revisions';
import { StackPrefixes, type StackTip } from './stack-prefixes';

export interface StackedPullRequest {
  number: number;
  headSha: string;
  /** Subject of the squash or merge commit; the head commit's subject when absent. */
  title?: string;
}

export interface BuildTestBranchInput {
  /** The target branch's head that the stack is built on. */
  baseSha: string;
  /** The PRs ahead in the queue first, then the PR(s) under test, in merge order. */
  stack: readonly StackedPullRequest[];
  method: MergeMethod;
  testRunId: string;
  /** Names the branch `railyard-merge/pr-<prNumber>/<testRunId>`; default the last PR of the stack. */
  prNumber?: number;
}

/** Where the stack stood after each PR: the target branch can be moved to any step's sha. */
export interface StackStep {
  number: number;
  sha: string;
  tree: string;
}

export type BuildTestBranchResult =
  { ok: true; branch: string; sha: string; tree: string; steps: StackStep[] } | { ok: false; conflict: StackConflict };

export interface StackConflict {
  /** The PR that could not be added. */
  number: number;
  /** What it conflicts with: the base, or the number of the first PR ahead of it that it clashes with. */
  with: 'base' | number;
  /** Conflicted paths as git reports them; empty when the histories share no ancestor. */
  paths: string[];
}

export interface CommitContext {
  gitDir: string;
  committer: Identity;
  /** Commits earlier builds wrote for the same prefixes (stack-prefixes.ts); none reused without it. */
  prefixes?: StackPrefixes;
  /** git's internal date format, so all commits of one build carry one time. */
  date: string;
}

export const testBranchName = (prNumber: number, testRunId: string): string => `railyard-merge/pr-${prNumber}/${testRunId}`;

type Applied = { ok: true; sha: string; tree: string } | { ok: false; paths: string[] };

type Tip = StackTip;

/**
 * Builds the test branch for a stack of PRs on the target's head without a working tree: each PR is
 * merged into the result of the ones before it with `git merge-tree`, and the commits are written
 * with `git commit-tree`. The ref is created only when every PR applied, and only if it is new.
 */
export const buildTestBranch = async (ctx: CommitContext, input: BuildTestBranchInput): Promise<BuildTestBranchResult> => {
  const branch = checkInput(input);
  const from = ctx.prefixes?.continuing(ctx.gitDir, input.method, input.baseSha);
  const keys = StackPrefixes.keys(ctx.gitDir, input.method, input.baseSha, input.stack, from);
  const last = input.stack.length - 1;
  // Claimed before anything is awaited: the engine starts a round's builds in plan order, so a build
  // that stacks this one's PR finds it being written and waits for it instead of writing it again.
  const own = ctx.prefixes?.begin(keys[last] as string);
  let ownTip: Tip | undefined;
  try {
    const result = await buildSteps(ctx, input, keys, from?.tip);
    if (!result.ok) return result;
    ownTip = result.tip;
    await createRef(ctx.gitDir, `refs/heads/${branch}`, ownTip.sha);
    return { ok: true, branch, sha: ownTip.sha, tree: ownTip.tree, steps: result.steps };
  } finally {
    own?.end(ownTip);
  }
};

type Steps = { ok: true; tip: Tip; steps: StackStep[] } | Extract<BuildTestBranchResult, { ok: false }>;

/** `continued`: the base is the last commit of a prefix an earlier build wrote, whose heads it keeps. */
const buildSteps = async (ctx: CommitContext, input: BuildTestBranchInput, keys: readonly string[], continued?: Tip): Promise<Steps> => {
  const base: Tip = continued ?? { sha: input.baseSha, tree: await treeOfCommit(ctx.gitDir, input.baseSha), heads: [] };
  const tips: Tip[] = [];
  const steps: StackStep[] = [];
  const last = input.stack.length - 1;
  let tip = base;
  // Reused only from the start and without a gap: a later prefix written on other commits than the
  // ones this build wrote would leave steps that do not descend from each other. The last step, the
  // commit under test, is always written anew (stack-prefixes.ts says why).
  let reusing = true;
  for (const [index, pr] of input.stack.entries()) {
    const key = keys[index] as string;
    const known: Tip | undefined = reusing && index < last ? await ctx.prefixes?.find(key) : undefined;
    reusing = known !== undefined;
    if (known === undefined) {
      // Builds running now that stack the same PRs wait for this one instead of writing them again.
      const writing = index === last ? undefined : ctx.prefixes?.begin(key);
      let applied: Applied | undefined;
      try {
        applied = await applyPullRequest(ctx, input.method, input.baseSha, tip, pr);
      } finally {
        writing?.end(applied?.ok ? { sha: applied.sha, tree: applied.tree, heads: [...tip.heads, pr.headSha] } : undefined);
      }
      if (!applied.ok) return { ok: false, conflict: await attributeConflict(ctx, input, base, tips, index, applied.paths) };
      tip = { sha: applied.sha, tree: applied.tree, heads: [...tip.heads, pr.headSha] };
    } else tip = known;
    tips.push(tip);
    steps.push({ number: pr.number, sha: tip.sha, tree: tip.tree });
    ctx.prefixes?.ended(ctx.gitDir, input.method, key, tip);
  }
  return { ok: true, tip, steps };
};

const checkInput = (input: BuildTestBranchInput): string => {
  if (!isObjectId(input.baseSha))
    throw new GitHostError('INVALID_INPUT', `baseSha must be a full commit id, got ${JSON.stringify(input.baseSha)}`);
  if (input.stack.length === 0) throw new GitHostError('INVALID_INPUT', 'the stack is empty');
  const seen = new Set<number>();
  for (const pr of input.stack) {
    if (!isValidPrNumber(pr.number) || seen.has(pr.number))
      throw new GitHostError('INVALID_INPUT', `PR numbers in a stack are distinct positive integers, got ${pr.number}`);
    if (!isObjectId(pr.headSha)) throw new GitHostError('INVALID_INPUT', `PR #${pr.number}: headSha must be a full commit id`);
    seen.add(pr.number);
  }
  const prNumber = input.prNumber ?? input.stack[input.stack.length - 1]?.number ?? 0;
  const branch = testBranchName(prNumber, input.testRunId);
  if (!isValidPrNumber(prNumber) || !isValidBranchName(branch))
    throw new GitHostError('INVALID_INPUT', `not a valid test branch name: ${JSON.stringify(branch)}`);
  return branch;
};

/**
 * Why PR `index` failed: it is tried alone on the base, then on the stack after each PR ahead in
 * turn; the first place it stops applying names the culprit. Runs only on the failure path.
 */
const attributeConflict = async (
  ctx: CommitContext,
  input: BuildTestBranchInput,
  base: Tip,
  tips: Tip[],
  index: number,
  paths: string[],
): Promise<StackConflict> => {
  const pr = input.stack[index] as StackedPullRequest;
  const numberAt = (i: number): number => (input.stack[i] as StackedPullRequest).number;
  if (index === 0) return { number: pr.number, with: 'base', paths };
  const alone = await applyPullRequest(ctx, input.method, input.baseSha, base, pr);
  if (!alone.ok) return { number: pr.number, with: 'base', paths: alone.paths };
  // The stack after the last PR ahead is where it failed, so the search can stop one short of it.
  for (let i = 0; i < index - 1; i++) {
    const attempt = await applyPullRequest(ctx, input.method, input.baseSha, tips[i] as Tip, pr);
    if (!attempt.ok) return { number: pr.number, with: numberAt(i), paths: attempt.paths };
  }
  return { number: pr.number, with: numberAt(index - 1), paths };
};

const applyPullRequest = async (
  ctx: CommitContext,
  method: MergeMethod,
  baseSha: string,
  tip: Tip,
  pr: StackedPullRequest,
): Promise<Applied> => {
  if (method === 'rebase') return replayCommits(ctx, baseSha, tip, pr);
  const merged = await mergeTree(ctx.gitDir, await mergeSideOf(ctx, method, tip), pr.headSha);
  if (!merged.clean) return { ok: false, paths: merged.conflicts };
  const head = await commitSummary(ctx.gitDir, pr.headSha);
  const title = pr.title ?? head.subject;
  const sha =
    method === 'squash'
      ? await commitTree(ctx.gitDir, {
          tree: merged.tree,
          parents: [tip.sha],
          message: `${title} (#${pr.number})\n`,
          // A squash keeps who wrote the change; the queue is only the committer.
          author: { name: head.authorName, email: head.authorEmail },
          committer: ctx.committer,
          authorDate: ctx.date,
          committerDate: ctx.date,
        })
      : await commitTree(ctx.gitDir, {
          tree: merged.tree,
          parents: [tip.sha, pr.headSha],
          message: `Merge pull request #${pr.number}\n\n${title}\n`,
          author: ctx.committer,
          committer: ctx.committer,
          authorDate: ctx.date,
          committerDate: ctx.date,
        });
  return { ok: true, sha, tree: merged.tree };
};

/**
 * The commit to merge a PR into. A squash tip does not have the heads of the PRs it holds in its
 * history, so a PR built on one of them would see that PR's changes as its own and clash with their
 * squashed copy. A stand-in commit with the tip's tree and those heads as extra parents lets git
 * find the right merge base. A merge-commit tip already has them as parents.
 */
const mergeSideOf = (ctx: CommitContext, method: MergeMethod, tip: Tip): Promise<string> =>
  method === 'squash' && tip.heads.length > 0 ? standInCommit(ctx, tip.tree, [tip.sha, ...tip.heads]) : Promise.resolve(tip.sha);

const standInCommit = (ctx: CommitContext, tree: string, parents: readonly string[]): Promise<string> =>
  commitTree(ctx.gitDir, {
    tree,
    parents,
    message: 'railyard: merge base stand-in\n',
    author: ctx.committer,
    committer: ctx.committer,
    authorDate: ctx.date,
    committerDate: ctx.date,
  });

/**
 * A rebase: each non-merge commit of base..head is cherry-picked onto the tip. git 2.39's merge-tree
 * has no --merge-base, so the pick is a merge of the commit with a stand-in commit that holds the
 * tip's tree on the commit's own parent: their one best common ancestor is that parent, which makes
 * it the three-way base, as in a cherry-pick. Commits of PRs already in the stack are not replayed
 * again, and commits that end up changing nothing are dropped, as git rebase drops them.
 */
const replayCommits = async (ctx: CommitContext, baseSha: string, start: Tip, pr: StackedPullRequest): Promise<Applied> => {
  let tip = { sha: start.sha, tree: start.tree };
  for (const commit of await commitsToReplay(ctx.gitDir, [baseSha, ...start.heads], pr.headSha)) {
    const parent = commit.parents[0];
    const standIn = await standInCommit(ctx, tip.tree, parent === undefined ? [] : [parent]);
    const merged = await mergeTree(ctx.gitDir, standIn, commit.sha, { allowUnrelated: parent === undefined });
    if (!merged.clean) return { ok: false, paths: merged.conflicts };
    if (merged.tree === tip.tree) continue;
    const sha = await commitTree(ctx.gitDir, {
      tree: merged.tree,
      parents: [tip.sha],
      message: commit.message,
      author: commit.author,
      committer: ctx.committer,
      authorDate: commit.authorDate,
      committerDate: ctx.date,
    });
    tip = { sha, tree: merged.tree };
  }
  return { ok: true, sha: tip.sha, tree: tip.tree };
};

const createRef = async (gitDir: string, ref: string, sha: string): Promise<void> => {
  // An empty old value makes update-ref refuse to overwrite: a test run's branch is never reused.
  const { code, stderr } = await runGit(gitDir, ['update-ref', ref, sha, ''], { okCodes: [128] });
  if (code === 0) return;
  if (/already exists/.test(stderr)) throw new GitHostError('REF_EXISTS', `${ref} already exists`);
  throw new GitHostError('GIT_FAILED', `could not create ${ref}: ${stderr.trim()}`);
};
