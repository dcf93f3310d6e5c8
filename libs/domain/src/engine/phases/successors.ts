import type { Entry, TestRun } from '../../state';
import type { Ctx } from '../context';
import { currentRun } from '../runs';
import { failedGenuinely } from './retries';

/** The first `depth` runs behind `members` (in plan order) that stacked one of them. */
const successorRuns = (c: Ctx, members: readonly Entry[], depth: number): TestRun[] => {
  const mine = new Set(members.map((m) => m.prNumber));
  const first = Math.min(...members.map((m) => c.pos.get(m.prNumber) ?? Infinity));
  const seen = new Set<string>();
  const successors: TestRun[] = [];
  for (const b of c.chain) {
    if (successors.length >= depth) break;
    if ((c.pos.get(b.prNumber) ?? 0) <= first || mine.has(b.prNumber)) continue;
    const r = currentRun(c.s, b);
    if (!r || seen.has(r.testRunId) || !r.dependentPrs.some((d) => mine.has(d))) continue;
    seen.add(r.testRunId);
    successors.push(r);
  }
  return successors;
};

/**
 * Whether the anti-flake window of a failed group is still open: one of its first
 * `pendingFailureDepth` successors that stacked it is still testing, so a pass could still prove the
 * failure a flake (reference trunk §4.4). With optimistic merging, a successor that failed too is no
 * evidence yet (it may have failed for its own PR): its own successors, which stack both, are waited
 * for in turn, and a pass among them proves both. Blame and bisection wait while the window is open.
 */
export const successorsStillTesting = (c: Ctx, members: readonly Entry[], visited: Set<string> = new Set()): boolean => {
  const depth = c.s.settings.pendingFailureDepth;
  if (depth === 0) return false;
  for (const r of successorRuns(c, members, depth)) {
    if (r.status === 'testing') return true;
    if (!c.s.settings.canOptimisticallyMerge || r.status !== 'failed' || visited.has(r.testRunId)) continue;
    visited.add(r.testRunId);
    const failed = r.prNumbers
      .map((n) => c.s.entries.get(n))
      .filter((e): e is Entry => e?.state === 'pending_failure' && e.testRunId === r.testRunId);
    if (failed.length > 0 && successorsStillTesting(c, failed, visited)) return true;
  }
  return false;
};

/**
 * Whether a PR that failed alone still wants a witness: no run has stacked it since its own run
 * started. A suspect is normally left out of new runs, so a PR that failed while it was the last one
 * in flight would have no successor and be blamed at once: with anti-flake protection on, that was
 * most of the innocent ejections of a flaky queue (docs/engine.md, decisions). So the next run
 * started behind it stacks it, and its verdict settles it like any successor's. One witness, whatever
 * the depth: a second would be asked for only after the first failed, and by then the runs behind may
 * be waiting for this very PR to be settled (a failed batch is not bisected while a suspect is under
 * it). Failed batches are bisected instead.
 */
export const wantsWitness = (c: Ctx, e: Entry): boolean => {
  const { canOptimisticallyMerge, pendingFailureDepth: depth } = c.s.settings;
  if (!canOptimisticallyMerge || depth === 0 || e.state !== 'pending_failure' || e.hasSuccessor === true) return false;
  const run = currentRun(c.s, e);
  // A genuine failure wants no witness (docs/engine.md, Flakes).
  return run !== undefined && run.prNumbers.length === 1 && !run.bisection && !failedGenuinely(c, run);
};
