import type { RestartReason } from '../events';
import type { Entry, TestRun } from '../state';
import { isStackable, isSuspect, mergedPrefix, positionIn, steppedAside, type Ctx } from './context';
import { beforeStep, currentRun, stackOf } from './runs';

const ON_A_RUN = new Set(['testing', 'tests_passed', 'pending_failure']);

/**
 * Whether `d` failed on a run that stacked a PR the run judging `e` left out and that will not merge
 * under `d` (a suspect, or gone): that failure says nothing of the tree `e`'s run tests, and `d`
 * restarts onto exactly the PRs that run stacked under it, so the run goes on (a run started behind
 * a held failure outlives the failures of the runs that stacked it).
 */
const failedOnOtherStack = (c: Ctx, d: Entry, stacked: ReadonlySet<number>): boolean => {
  const own = d.state === 'pending_failure' ? currentRun(c.s, d) : undefined;
  if (!own) return false;
  return positionIn(own, d.prNumber).deps.some((x) => {
    const xe = c.s.entries.get(x);
    return !stacked.has(x) && xe?.state !== 'merged' && (xe === undefined || !isStackable(c.s, xe));
  });
};

/** A PR that gave up its place when its re-run beside the queue passed (FLAKE_RETRY_PASSED): its last run is that re-run. */
const backFromReRun = (c: Ctx, d: Entry): boolean => {
  const last = d.state === 'pending' && d.testRunId !== undefined ? c.s.runs.get(d.testRunId) : undefined;
  return last?.retry !== undefined && last.status === 'succeeded';
};

/** Why a PR stacked under `e` makes its run useless, or undefined while every one is still on its way. */
const brokenDependency = (c: Ctx, e: Entry, run: TestRun, unmerged: number[]): RestartReason | undefined => {
  const mine = c.pos.get(e.prNumber) ?? Infinity;
  let stacked: Set<number> | undefined;
  for (const d of unmerged) {
    const de = c.s.entries.get(d);
    if (!de || de.state === 'cancelled' || de.state === 'not_ready') return 'PREREQUISITE_MERGE_ITEM_CANCELLED';
    if (failedOnOtherStack(c, de, (stacked ??= new Set(stackOf(run))))) continue;
    // A failure beside the queue is taken as real by the runs that stacked it: they go on without it.
    if (de.state === 'failed' || steppedAside(c.s, de)) return 'PREREQUISITE_MERGE_ITEM_FAILED';
    // In parallel mode PRs of other lanes under it merge in their own order; the merge replays onto them.
    if (de.state === 'merged') {
      if (c.graph.parallel) continue;
      return 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED';
    }
    // It now queues behind this one and can no longer merge first: displaced by an urgent PR, which
    // displaced this one too, or back from a passing re-run behind the runs that left it out, which
    // this one restarts without, keeping its place (D338).
    if ((c.pos.get(d) ?? Infinity) > mine) return backFromReRun(c, de) ? 'PREREQUISITE_MERGE_ITEM_FAILED' : 'SKIP_THE_LINE_INTERRUPTED';
  }
  return undefined;
};

/** A batch-mate tested after `e` left the run while it was testing: the run no longer tests what would merge. */
const brokenBatch = (c: Ctx, e: Entry, run: TestRun): RestartReason | undefined => {
  if (e.state !== 'testing' || run.prNumbers.length < 2) return undefined;
  for (const n of run.prNumbers) {
    const mate = c.s.entries.get(n);
    if (!mate || (ON_A_RUN.has(mate.state) && mate.testRunId === run.testRunId)) continue;
    if (mate.state === 'failed') return 'PREREQUISITE_MERGE_ITEM_FAILED';
    if (mate.state === 'merged') return 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED';
    return 'PREREQUISITE_MERGE_ITEM_CANCELLED';
  }
  return undefined;
};

/** Something ahead that `e` depends on and that will merge first is missing from its run. */
const missingAhead = (c: Ctx, e: Entry, stacked: ReadonlySet<number>): RestartReason | undefined => {
  for (const ahead of c.graph.closureAhead(e, (x) => x.flightSeq !== undefined)) {
    // A suspect ahead may be left out; anything else ahead will merge first and must be under this run.
    if (!isSuspect(c.s, ahead) && !stacked.has(ahead.prNumber)) return 'PREREQUISITE_MERGE_ITEM_FAILED';
  }
  return undefined;
};

/**
 * Whether the target still is what the run predicted. Single mode: its tree is exactly the tree the
 * run had after the PRs already merged. Parallel mode: PRs of other lanes merge meanwhile, so the
 * tree moves; what must hold is that every move since the run's base was one of the queue's own
 * merges (which touch other targets, or are stacked in the run). Anything else is a foreign push.
 */
const targetMoved = (c: Ctx, run: TestRun, merged: number, lenient: boolean): boolean => {
  const target = c.facts.target;
  if (!target) return false;
  if (c.graph.parallel || lenient) return !c.ownHeads().has(run.baseSha);
  const expected = beforeStep(run, merged);
  return expected !== undefined && target.tree !== expected.tree;
};

/**
 * Why the run deciding `e` no longer predicts what its merge would produce, or undefined while it
 * does. A PR testing in (or failed by) a bisection run keeps it whatever the queue merged or cleared
 * ahead since: the run answers "does this half fail on that base", which stays a valid question; a
 * passing answer is checked against the queue like any other once its PRs passed. Only a foreign push
 * or a PR under it leaving makes it stale.
 */
export const staleness = (c: Ctx, e: Entry, run: TestRun): RestartReason | undefined => {
  const { deps } = positionIn(run, e.prNumber);
  const m = mergedPrefix(c.s, deps);
  const unmerged = deps.slice(m);
  const lenient = run.bisection && (e.state === 'testing' || e.state === 'pending_failure');
  const reason =
    brokenDependency(c, e, run, unmerged) ?? brokenBatch(c, e, run) ?? (lenient ? undefined : missingAhead(c, e, new Set(unmerged)));
  if (reason) return reason;
  // PRs behind a PR beside the queue may merge past it: its failed run and re-run keep asking about that commit.
  return targetMoved(c, run, m, lenient || steppedAside(c.s, e)) ? 'MANUAL_PUSH_TO_TARGET_BRANCH' : undefined;
};
