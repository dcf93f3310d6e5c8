import type { FakeCore } from './core';
import { changedPaths, commitsBetween, compareAndSwapRef, isAncestor, listRefs, mergeBase, readCommit, readRef } from './git';
import type { FakePull, FakeRepo, FakeUser } from './model';
import { pullRequestPayload, pushPayload, type PullEventExtras, type PushedCommit } from './payloads';
import { derivePull } from './pull-state';

/**
 * What GitHub does when branches move, whoever moved them (the API, a `git push`, the test's
 * control calls): push events, pull request heads following their branch, and pull requests
 * flagged merged once their head is part of their base, a little later.
 */

const ZERO = '0'.repeat(40);
// GitHub lists at most this many commits in a push event.
const PUSH_COMMITS_LIMIT = 20;

export const emitPullEvent = async (core: FakeCore, pr: FakePull, action: string, sender: FakeUser, extras: PullEventExtras = {}) => {
  const repo = core.state.repo(pr.repoId);
  if (!core.listeningInstallation(repo)) return;
  const derived = await derivePull(core, pr);
  core.emitFor(repo, 'pull_request', action, (inst) => pullRequestPayload(action, pr, derived, inst, sender, core.view, extras));
};

const pushedCommit = async (repo: FakeRepo, sha: string): Promise<PushedCommit | null> => {
  const commit = await readCommit(repo.gitDir, sha);
  return commit === null ? null : { commit, ...(await changedPaths(repo.gitDir, sha)) };
};

const emitPush = async (core: FakeCore, repo: FakeRepo, branch: string, before: string, after: string, pusher: FakeUser) => {
  if (!core.listeningInstallation(repo)) return;
  let shas: string[] = [];
  if (after !== ZERO) {
    // A new branch lists what it adds to the default branch.
    const exclude = before !== ZERO ? before : branch === repo.defaultBranch ? undefined : repo.knownBranches.get(repo.defaultBranch);
    shas = exclude === undefined ? [after] : await commitsBetween(repo.gitDir, exclude, after, Number.MAX_SAFE_INTEGER);
  }
  const commits = (await Promise.all(shas.slice(-PUSH_COMMITS_LIMIT).map((sha) => pushedCommit(repo, sha)))).filter(
    (c): c is PushedCommit => c !== null,
  );
  const forced = before !== ZERO && after !== ZERO && !(await isAncestor(repo.gitDir, before, after));
  const head = after === ZERO ? null : await pushedCommit(repo, after);
  core.emitFor(repo, 'push', null, (inst) =>
    pushPayload(repo, { ref: `refs/heads/${branch}`, before, after, forced, commits, head }, inst, pusher, core.view),
  );
};

const followHead = async (core: FakeCore, pr: FakePull, before: string, after: string, pusher: FakeUser) => {
  const base = core.state.repo(pr.repoId);
  const ref = `refs/pull/${pr.number}/head`;
  await compareAndSwapRef(base.gitDir, ref, after, await readRef(base.gitDir, ref));
  pr.headSha = after;
  pr.mergeability = null;
  pr.updatedAt = core.state.iso();
  if (pr.mergePending && !(await isAncestor(base.gitDir, after, pr.mergePending.sha))) pr.mergePending = null;
  await emitPullEvent(core, pr, 'synchronize', pusher, { before, after });
};

/** Flags a pull request merged, as GitHub does some time after the push that made its head part of the base. */
export const markMerged = async (core: FakeCore, pr: FakePull): Promise<void> => {
  const pending = pr.mergePending;
  if (pr.state !== 'open' || pending === null) return;
  const repo = core.state.repo(pr.repoId);
  const now = core.state.iso();
  pr.countedFrom = pending.baseBefore === ZERO ? null : await mergeBase(repo.gitDir, pending.baseBefore, pr.headSha);
  Object.assign(pr, {
    state: 'closed',
    merged: true,
    mergedAt: now,
    closedAt: now,
    updatedAt: now,
    mergedBy: pending.by,
    mergeCommitSha: pending.sha,
    mergePending: null,
  });
  await emitPullEvent(core, pr, 'closed', pending.by);
};

const watchForMerge = async (core: FakeCore, repo: FakeRepo, branch: string, before: string, after: string, pusher: FakeUser) => {
  for (const pr of core.state.pullsOf(repo.id)) {
    if (pr.state !== 'open' || pr.baseRef !== branch) continue;
    pr.mergeability = null;
    if (pr.mergePending !== null || after === ZERO || !(await isAncestor(repo.gitDir, pr.headSha, after))) continue;
    pr.mergePending = { sha: after, by: pusher, baseBefore: before };
    core.later(core.behaviour.mergedFlagDelayMs, () => markMerged(core, pr));
  }
};

/**
 * Compares the repository's branches with what the fake last saw and reacts to every change.
 * Call after anything that may have moved a branch.
 */
export const syncBranches = async (core: FakeCore, repo: FakeRepo, pusher: FakeUser): Promise<void> => {
  const current = new Map((await listRefs(repo.gitDir, 'refs/heads/')).map(({ ref, sha }) => [ref.slice('refs/heads/'.length), sha]));
  const names = new Set([...repo.knownBranches.keys(), ...current.keys()]);
  for (const branch of names) {
    const before = repo.knownBranches.get(branch) ?? ZERO;
    const after = current.get(branch) ?? ZERO;
    if (before === after) continue;
    await emitPush(core, repo, branch, before, after, pusher);
    if (after === ZERO) repo.knownBranches.delete(branch);
    else repo.knownBranches.set(branch, after);
    for (const prs of core.state.pulls.values()) {
      for (const pr of prs) {
        if (pr.state === 'open' && pr.headRepoId === repo.id && pr.headRef === branch && after !== ZERO) {
          await followHead(core, pr, before, after, pusher);
        }
      }
    }
    await watchForMerge(core, repo, branch, before, after, pusher);
    if (after !== ZERO) for (const listener of core.branchListeners) listener(repo, branch, after);
  }
};
