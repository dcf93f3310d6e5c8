import { commitTree, mergeTree } from '@railyard/githost';
import { anythingFailed, checkPassed, requiredChecks } from './checks-state';
import type { FakeCore } from './core';
import { compareAndSwapRef, countCommitsBetween, diffStats, isAncestor, mergeBase, readRef } from './git';
import type { FakePull } from './model';
import type { PullDerived } from './representations/pulls';

/**
 * What GitHub computes about a pull request when it is read. Mergeability is lazy, as on GitHub:
 * the first API read after the base or head moved answers `mergeable: null` and starts the
 * computation; a later read gets the answer. Webhook payloads show what is known and start nothing,
 * so that "null first" holds for every client, however quickly it reads.
 */

const running = new WeakMap<FakePull, string>();

const mergeabilityKey = (baseSha: string, headSha: string): string => `${baseSha}..${headSha}`;

const computeMergeability = async (core: FakeCore, pr: FakePull, baseSha: string): Promise<void> => {
  const repo = core.state.repo(pr.repoId);
  const headSha = pr.headSha;
  const result = await mergeTree(repo.gitDir, baseSha, headSha, { allowUnrelated: false });
  let mergeCommitSha: string | null = null;
  if (result.clean) {
    const bot = { name: 'GitHub', email: 'noreply@github.com' };
    mergeCommitSha = await commitTree(repo.gitDir, {
      tree: result.tree,
      parents: [baseSha, headSha],
      message: `Merge ${headSha} into ${baseSha}`,
      author: bot,
      committer: bot,
    });
    const ref = `refs/pull/${pr.number}/merge`;
    await compareAndSwapRef(repo.gitDir, ref, mergeCommitSha, await readRef(repo.gitDir, ref));
  }
  // Only keep the answer if nothing moved while it was computed.
  if (pr.headSha === headSha && repo.knownBranches.get(pr.baseRef) === baseSha) {
    pr.mergeability = { baseSha, headSha, conflicts: !result.clean, mergeCommitSha };
  }
};

const startMergeability = (core: FakeCore, pr: FakePull, baseSha: string): void => {
  const key = mergeabilityKey(baseSha, pr.headSha);
  if (running.get(pr) === key) return;
  running.set(pr, key);
  core.later(core.behaviour.mergeabilityDelayMs, async () => {
    try {
      await computeMergeability(core, pr, baseSha);
    } finally {
      if (running.get(pr) === key) running.delete(pr);
    }
  });
};

const checksState = async (core: FakeCore, pr: FakePull, baseSha: string): Promise<string> => {
  const repo = core.state.repo(pr.repoId);
  const { checks, strict } = requiredChecks(repo, pr.baseRef);
  if (checks.some((check) => !checkPassed(core.state, repo.id, pr.headSha, check))) return 'blocked';
  if (strict && !(await isAncestor(repo.gitDir, baseSha, pr.headSha))) return 'behind';
  return anythingFailed(core.state, repo.id, pr.headSha) ? 'unstable' : 'clean';
};

const mergeableOf = async (
  core: FakeCore,
  pr: FakePull,
  baseSha: string,
  compute: boolean,
): Promise<Pick<PullDerived, 'mergeable' | 'mergeableState'>> => {
  if (pr.state === 'closed') return { mergeable: null, mergeableState: 'unknown' };
  if (pr.mergePending !== null) {
    return core.behaviour.pendingMergeState === 'dirty'
      ? { mergeable: false, mergeableState: 'dirty' }
      : { mergeable: null, mergeableState: 'unknown' };
  }
  const known = pr.mergeability;
  if (!known || known.baseSha !== baseSha || known.headSha !== pr.headSha || known.conflicts === null) {
    if (compute) startMergeability(core, pr, baseSha);
    return { mergeable: null, mergeableState: 'unknown' };
  }
  if (known.conflicts) return { mergeable: false, mergeableState: 'dirty' };
  if (pr.draft) return { mergeable: true, mergeableState: 'draft' };
  return { mergeable: true, mergeableState: await checksState(core, pr, baseSha) };
};

export const baseShaOf = (core: FakeCore, pr: FakePull): string => core.state.repo(pr.repoId).knownBranches.get(pr.baseRef) ?? pr.headSha;

/** `compute`: an API read, which starts computing mergeability when it is not known. */
export const derivePull = async (core: FakeCore, pr: FakePull, compute = false): Promise<PullDerived> => {
  const repo = core.state.repo(pr.repoId);
  const baseSha = baseShaOf(core, pr);
  // Once merged, the head is part of the base: the counters keep describing the PR as it was.
  const fork = pr.countedFrom ?? (await mergeBase(repo.gitDir, baseSha, pr.headSha)) ?? baseSha;
  const stats = await diffStats(repo.gitDir, fork, pr.headSha);
  return {
    baseSha,
    ...(await mergeableOf(core, pr, baseSha, compute)),
    commits: await countCommitsBetween(repo.gitDir, fork, pr.headSha),
    additions: stats.additions,
    deletions: stats.deletions,
    changedFiles: stats.files,
    comments: [...core.state.comments.values()].filter((c) => c.repoId === repo.id && c.issueNumber === pr.number).length,
  };
};
