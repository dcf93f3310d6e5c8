import type { Entry, QueueState, TestRun } from '../../state';
import { mayMerge, mergedPrefix, positionIn, retriesBeside, steppedAside, type Ctx, type Phase } from '../context';
import type { StatusReporters } from '../../events';
import { gatingReports, reporterPolicy } from '../../status-reporters';
import type { DirectMergeFacts } from '../facts';
import { planOrder } from '../order';
import { afterStep, beforeStep, currentRun } from '../runs';

export interface Mergeable {
  e: Entry;
  run: TestRun;
  index: number;
  before: { sha: string; tree: string };
  after: { sha: string; tree: string };
}

/** Something ahead that `e` depends on must merge or be settled first; a PR beside the queue need not (docs/engine.md, Flakes). */
const blockedAhead = (c: Ctx, e: Entry): boolean =>
  c.graph.hasAhead(e) && (!retriesBeside(c.s) || c.graph.closureAhead(e, (x) => !steppedAside(c.s, x)).length > 0);

/**
 * Passed entries whose turn has come, in plan order: nothing they depend on is left ahead of them
 * and everything stacked under them in their run has merged. In single mode that is the head of the
 * queue only, so PRs land in queue order; in parallel mode the head of every lane.
 */
export const mergeable = (c: Ctx): Mergeable[] => {
  const out: Mergeable[] = [];
  for (const e of c.chain) {
    if (e.state !== 'tests_passed' || blockedAhead(c, e)) continue;
    const run = currentRun(c.s, e);
    if (!run) continue;
    const { index, deps } = positionIn(run, e.prNumber);
    if (index < 0 || mergedPrefix(c.s, deps) < deps.length) continue;
    const before = beforeStep(run, index);
    const after = afterStep(run, index);
    if (before && after) out.push({ e, run, index, before, after });
  }
  return out;
};

/**
 * One merge per round: the next one is planned on a state that holds this one. Single mode needs the
 * target to hold the tree the run had before this PR. Parallel mode accepts a target that moved by
 * the queue's own merges of other lanes (the restart phase already replaced any run a foreign push
 * made stale); the engine then replays the PR's commits onto it.
 */
export const merges: Phase = (c) => {
  const target = c.facts.target;
  if (!mayMerge(c.s) || !target) return [];
  for (const m of mergeable(c)) {
    if (!c.graph.parallel && target.tree !== m.before.tree) continue;
    if (c.graph.parallel && !c.ownHeads().has(m.run.baseSha)) continue;
    const { e, run, index, before, after } = m;
    if (after.tree === before.tree)
      return [{ kind: 'completeMerge', prNumber: e.prNumber, mergeSha: target.sha, testRunId: run.testRunId, reason: 'MERGE_GRAPH_MERGE' }];
    return [{ kind: 'merge', prNumber: e.prNumber, testRunId: run.testRunId, index, before, after, onto: target.sha }];
  }
  return [];
};

/**
 * The PR a direct merge could take: with `directMergeMode: always`, the first PR in plan order when
 * it is waiting and nothing is in flight (the queue is empty ahead of it). The engine reads host facts
 * for this PR only; the phases below decide with them.
 */
export const directMergeCandidate = (s: QueueState, inOrder?: readonly Entry[]): Entry | undefined => {
  if (s.settings.directMergeMode !== 'always') return undefined;
  const order = inOrder ?? planOrder(s);
  const first = order[0];
  if (first?.state !== 'pending') return undefined;
  if (order.some((e) => e.flightSeq !== undefined || currentRun(s, e) !== undefined)) return undefined;
  return first;
};

/** The candidate's facts, when the engine read them for the PR and head the queue holds. */
export const directMergeFactsOf = (c: Ctx): { e: Entry; dm: DirectMergeFacts } | undefined => {
  const dm = c.facts.directMerge;
  // Without facts for a candidate there is nothing to match: the plan order is not even copied.
  if (!dm) return undefined;
  const e = directMergeCandidate(c.s, c.order);
  return dm && e && e.prNumber === dm.prNumber && e.headSha === dm.headSha ? { e, dm } : undefined;
};

/**
 * Direct merge skips the queue's own run, never the checks: every required status must be passing on
 * the PR head, which is the tree that lands (the PR is up to date), reported by someone the queue
 * lets report it (gatingReports: a check the local CI runs counts only from the local CI, which runs
 * on test branches, so such a check always takes a run). With no required status known, or one
 * missing, pending, failed or from anyone else, the PR goes through a normal run.
 */
export const headChecksPassed = (dm: DirectMergeFacts, queue: { statusReporters: StatusReporters }): boolean => {
  const { counted } = gatingReports(reporterPolicy(queue, dm.localChecks), dm.headStatuses);
  return (
    dm.requiredStatuses.length > 0 &&
    dm.requiredStatuses.every((context) => counted.some((st) => st.context === context && st.state === 'success'))
  );
};

export const directMerge: Phase = (c) => {
  const found = directMergeFactsOf(c);
  const target = c.facts.target;
  if (!found || !target || !mayMerge(c.s) || !found.dm.upToDate || !headChecksPassed(found.dm, c.s)) return [];
  return [{ kind: 'directMerge', prNumber: found.e.prNumber, headSha: found.e.headSha, baseSha: target.sha }];
};
