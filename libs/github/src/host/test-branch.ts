import type { MergeMethod } from '@railyard/domain';
import { GitHostError } from '@railyard/githost';
import { checkSha, type GitCommit, type MergeResult, type RepoApi } from './repo-api';

export interface StackedPull {
  number: number;
  headSha: string;
  title?: string;
}

export interface BuildRequest {
  baseSha: string;
  stack: readonly StackedPull[];
  method: MergeMethod;
  testRunId: string;
  prNumber: number;
}

export type Built =
  | { ok: true; branch: string; sha: string; tree: string; steps: { number: number; sha: string; tree: string }[] }
  | { ok: false; conflict: { number: number; with: 'base' | number; paths: string[] } };

export const TEST_BRANCH_PREFIX = 'railyard-merge/';
/** Scratch branches of carryOnto's replays; outside the test-branch prefix, so no sweep takes one mid-use. */
export const CARRY_BRANCH_PREFIX = 'railyard-carry/';

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const testBranchName = (prNumber: number, testRunId: string): string => {
  if (!Number.isSafeInteger(prNumber) || prNumber < 1) throw new GitHostError('INVALID_INPUT', `not a PR number: ${prNumber}`);
  if (!RUN_ID.test(testRunId) || testRunId.endsWith('.lock'))
    throw new GitHostError('INVALID_INPUT', `not a test run id: ${JSON.stringify(testRunId)}`);
  return `${TEST_BRANCH_PREFIX}pr-${prNumber}/${testRunId}`;
};

const firstLine = (message: string): string => message.split('\n', 1)[0] ?? '';

type Tip = { sha: string; tree: string };

/**
 * The paths the merges of a build changed on its branch, or null once one merge did not list them:
 * what tells whether the tested commit can hold other configuration files than its base.
 */
export type ChangedPaths = { paths: Set<string> | null };

const noteChanged = (track: ChangedPaths | undefined, merged: MergeResult): void => {
  if (!track || merged.kind !== 'merged') return;
  if (merged.changed === undefined) track.paths = null;
  else for (const p of merged.changed) track.paths?.add(p);
};
type Step = { ok: true; tip: Tip } | { ok: false };

/**
 * Adds one PR onto `tip` (the chain of real commits) through `scratch`, a branch whose history holds
 * every PR head merged so far. GitHub's merges API merges into a branch, so the branch carries
 * GitHub's merge commits and the chain is written beside it with the git data API: a merge commit
 * is the chain itself; a squash is one commit with the merge's tree on `tip`; a rebase merges and
 * copies each commit of the PR in turn, so each three-way merge is against that commit's own parent
 * (a cherry-pick). A commit that changes nothing is dropped, as git rebase drops it.
 */
/** The author of a squash: the PR's author as GitHub writes it, when known, else read from the head commit. */
export type AuthorOf = (headSha: string) => GitCommit['author'] | undefined;

export const applyOnto = async (
  api: RepoApi,
  scratch: string,
  method: MergeMethod,
  tip: Tip,
  pr: StackedPull,
  baseSha: string,
  authorOf: AuthorOf = () => undefined,
  track?: ChangedPaths,
): Promise<Step> => {
  if (method === 'merge_commit') {
    const title = pr.title ?? firstLine((await api.commit(pr.headSha)).message);
    const merged = await api.merge(scratch, pr.headSha, `Merge pull request #${pr.number}\n\n${title}\n`);
    noteChanged(track, merged);
    if (merged.kind === 'conflict') return { ok: false };
    return { ok: true, tip: merged.kind === 'nothing' ? tip : { sha: merged.sha, tree: merged.tree } };
  }
  if (method === 'squash') {
    const known = pr.title !== undefined ? authorOf(pr.headSha) : undefined;
    const head = known ? undefined : await api.commit(pr.headSha);
    const merged = await api.merge(scratch, pr.headSha, `railyard: stack #${pr.number}`);
    noteChanged(track, merged);
    if (merged.kind === 'conflict') return { ok: false };
    if (merged.kind === 'nothing' || merged.tree === tip.tree) return { ok: true, tip };
    const squash = await api.createCommit({
      tree: merged.tree,
      parents: [tip.sha],
      message: `${pr.title ?? firstLine(head?.message ?? '')} (#${pr.number})\n`,
      // A squash keeps who wrote the change; the App is the committer.
      author: known ?? (head as GitCommit).author,
    });
    return { ok: true, tip: { sha: squash.sha, tree: squash.tree } };
  }
  let current = tip;
  for (const commit of await api.commitsBetween(baseSha, pr.headSha)) {
    if (commit.parents.length > 1) continue;
    const merged = await api.merge(scratch, commit.sha, `railyard: pick ${commit.sha}`);
    noteChanged(track, merged);
    if (merged.kind === 'conflict') return { ok: false };
    if (merged.kind === 'nothing' || merged.tree === current.tree) continue;
    const picked = await api.createCommit({ tree: merged.tree, parents: [current.sha], message: commit.message, author: commit.author });
    current = { sha: picked.sha, tree: picked.tree };
  }
  return { ok: true, tip: current };
};

const checkStack = (request: BuildRequest): string => {
  checkSha(request.baseSha, 'baseSha');
  if (request.stack.length === 0) throw new GitHostError('INVALID_INPUT', 'the stack is empty');
  const seen = new Set<number>();
  for (const pr of request.stack) {
    if (!Number.isSafeInteger(pr.number) || pr.number < 1 || seen.has(pr.number))
      throw new GitHostError('INVALID_INPUT', `PR numbers in a stack are distinct positive integers, got ${pr.number}`);
    checkSha(pr.headSha, `PR #${pr.number}'s headSha`);
    seen.add(pr.number);
  }
  return testBranchName(request.prNumber, request.testRunId);
};

/**
 * Builds `railyard-merge/pr-<n>/<run>` through the git data API: the branch is created on the base,
 * every PR of the stack is merged into it in order, and when the method writes commits of its own
 * (squash, rebase) the branch is moved onto them at the end (it is Railyard's own branch: that move is
 * forced). A PR that does not apply deletes the branch and is named with what it clashes with: the
 * base when it does not apply alone, else the PR just ahead of it. GitHub's 409 names no files.
 */
export const buildTestBranch = async (api: RepoApi, request: BuildRequest, authorOf?: AuthorOf, track?: ChangedPaths): Promise<Built> => {
  const branch = checkStack(request);
  const base = await api.commit(request.baseSha);
  if (!(await api.createBranch(branch, request.baseSha))) throw new GitHostError('REF_EXISTS', `${branch} exists already`);
  let tip: Tip = { sha: base.sha, tree: base.tree };
  const steps: { number: number; sha: string; tree: string }[] = [];
  try {
    for (const [index, pr] of request.stack.entries()) {
      const step = await applyOnto(api, branch, request.method, tip, pr, request.baseSha, authorOf, track);
      if (!step.ok) {
        await api.deleteBranch(branch);
        return { ok: false, conflict: await attribute(api, request, index, base) };
      }
      tip = step.tip;
      steps.push({ number: pr.number, sha: tip.sha, tree: tip.tree });
    }
    if (request.method !== 'merge_commit') await api.updateBranch(branch, tip.sha, true);
  } catch (err) {
    // Half a test branch is of no use to anyone: gone, and the error goes on to the engine.
    await api.deleteBranch(branch).catch(() => undefined);
    throw err;
  }
  return { ok: true, branch, sha: tip.sha, tree: tip.tree, steps };
};

/** The PR tried alone on the base, on a scratch branch: only on the failure path. */
const attribute = async (
  api: RepoApi,
  request: BuildRequest,
  index: number,
  base: GitCommit,
): Promise<{ number: number; with: 'base' | number; paths: string[] }> => {
  const pr = request.stack[index] as StackedPull;
  if (index === 0) return { number: pr.number, with: 'base', paths: [] };
  const scratch = `${CARRY_BRANCH_PREFIX}attribute-${request.testRunId}`;
  await api.deleteBranch(scratch);
  await api.createBranch(scratch, base.sha);
  try {
    const alone = await applyOnto(api, scratch, 'merge_commit', { sha: base.sha, tree: base.tree }, { ...pr, title: 'probe' }, base.sha);
    return { number: pr.number, with: alone.ok ? (request.stack[index - 1] as StackedPull).number : 'base', paths: [] };
  } finally {
    await api.deleteBranch(scratch);
  }
};
