import { isUrgent } from '../../priority';
import type { Entry } from '../../state';
import type { Action } from '../actions';
import { mayStart, type Ctx, type Phase } from '../context';
import { batchSizeFor } from '../batch-size';
import { currentRun } from '../runs';
import { dueSoon } from '../run-times';
import { busyRuns, stackFor, startRunAction } from './stacks';

/** A PR that never shares a run: `noBatch`, urgent (it must not wait for others, nor fail with them), or cleared by a bisection. */
const testsAlone = (c: Ctx, e: Entry): boolean => !c.s.settings.batch || e.noBatch || isUrgent(e.priorityValue) || e.retestAlone === true;

/**
 * A PR of a failed batch not settled yet: pending failure on a run of several PRs, or testing in a
 * bisection run. A run started behind it would leave it out, and its good PRs, cleared later, merge
 * ahead and make that run stale: every such run is a wasted run. So nothing that depends on it starts
 * until the bisection is done (a pending failure of a PR alone is settled quickly and stays skipped).
 */
const inFailedBatch = (c: Ctx, e: Entry): boolean => {
  if (e.state !== 'pending_failure' && e.state !== 'testing') return false;
  const run = currentRun(c.s, e);
  return run !== undefined && (run.bisection || (e.state === 'pending_failure' && run.prNumbers.length > 1));
};

/**
 * A batch smaller than `batchingMinSize` starts once one of its PRs was in flight before (a restart
 * must not wait again), or once its oldest PR has waited `batchingMaxWaitTimeMinutes` since it was
 * submitted (reference trunk §4.1).
 */
const batchMayStart = (c: Ctx, batch: readonly Entry[]): boolean => {
  if (batch.length >= c.s.settings.batchingMinSize || batch.some((e) => e.flightSeq !== undefined)) return true;
  const oldest = Math.min(...batch.map((e) => Date.parse(e.submittedAt)));
  return c.nowMs - oldest >= c.s.settings.batchingMaxWaitTimeMinutes * 60_000;
};

/** The plan order cut where the priority changes: waiting PRs are sorted by priority (order.ts). */
const priorityGroups = (order: readonly Entry[]): Entry[][] => {
  const groups: Entry[][] = [];
  for (const e of order) {
    const last = groups[groups.length - 1];
    if (last && last[0]?.priorityValue === e.priorityValue) last.push(e);
    else groups.push([e]);
  }
  return groups;
};

/**
 * Starts runs in plan order while slots (`concurrency` minus the normal runs in flight) are free.
 * Each run stacks what its PRs depend on (`stackFor`). With batching, consecutive PRs that may share
 * a run form batches of up to the queue's current size (`batchSizeFor`: `batchingMinSize`, or more
 * when `batchingMaxSize` allows and the failure rate is low); a PR that tests alone keeps its place, so in single
 * mode it closes the batch ahead of it. Single mode stops at the first PR that cannot start, so no PR
 * overtakes one ahead of it; parallel mode skips such a PR and everything depending on it, so other
 * lanes go on. A PR whose run would stack one whose verdict is due within moments waits for it
 * (`dueSoon`, D340), held like a PR that may not start.
 *
 * Parallel mode without batches hands the free slots to the shallowest runs first (D346), within each
 * priority: each walk starts, in plan order, the PRs whose runs would stack at most `depth` PRs in
 * flight, and the next allows the least depth that was refused. A run on top of d PRs in flight is of
 * use only if all d pass, so a lane with little in flight gains more from a slot than a deep one;
 * plan order alone gave the slots to whichever lanes' PRs came first (16 disjoint areas: 88% of 16
 * lanes' throughput).
 */
export const starts: Phase = (c) => {
  if (!c.facts.target || c.s.runState === 'paused') return [];
  let slots = c.s.settings.concurrency - busyRuns(c, false);
  if (slots <= 0) return [];
  const parallel = c.graph.parallel;
  const out: Action[] = [];
  const waiting = new Set<number>();
  const starting = new Set<number>();
  const batch: Entry[] = [];
  const inBatch = new Set<number>();
  const witnessing = new Set<number>();
  let stopped = false;
  const size = batchSizeFor(c.s.settings, c.s.failureRate);
  const due = dueSoon(c.s, c.nowMs)?.prs;

  const start = (members: readonly Entry[]): void => {
    out.push(startRunAction(c, members, stackFor(c, members, starting, witnessing)));
    for (const m of members) starting.add(m.prNumber);
    slots--;
  };
  const closeBatch = (ready: boolean): void => {
    if (batch.length === 0) return;
    const members = batch.splice(0);
    inBatch.clear();
    if (ready && slots > 0) start(members);
    else for (const m of members) hold(m);
  };
  // In single mode nothing behind a held entry starts, but the batch gathered ahead of it may.
  function hold(e: Entry): void {
    waiting.add(e.prNumber);
    if (parallel) return;
    closeBatch(batch.length > 0 && batchMayStart(c, batch));
    stopped = true;
  }

  /** One walk of `entries` in plan order, starting those whose runs stack at most `depth` PRs; the least depth refused. */
  const walk = (entries: readonly Entry[], depth: number): number | undefined => {
    let deeper: number | undefined;
    for (const e of entries) {
      if (stopped || slots <= 0) break;
      if (inFailedBatch(c, e)) {
        hold(e);
        continue;
      }
      if (e.state !== 'pending' || starting.has(e.prNumber)) continue;
      if (!mayStart(c.s, e) || c.graph.dependsOnAny(e, waiting) || (due !== undefined && c.graph.dependsOnAny(e, due))) {
        hold(e);
        continue;
      }
      if (depth !== Infinity) {
        const stacked = stackFor(c, [e], starting).length;
        if (stacked > depth) {
          deeper = Math.min(deeper ?? stacked, stacked);
          hold(e);
          continue;
        }
      }
      if (testsAlone(c, e)) {
        if (!parallel) closeBatch(true);
        else if (c.graph.dependsOnAny(e, inBatch)) {
          hold(e);
          continue;
        }
        if (stopped || slots <= 0) break;
        start([e]);
        continue;
      }
      batch.push(e);
      inBatch.add(e.prNumber);
      if (batch.length >= size) closeBatch(true);
    }
    return deeper;
  };

  if (!parallel || c.s.settings.batch) walk(c.order, Infinity);
  else
    for (const group of priorityGroups(c.order)) {
      // Shallowest first within a priority: a PR of a higher one never waits for a lower one's slot.
      const held = [...waiting];
      let depth: number | undefined = 0;
      while (depth !== undefined && slots > 0) {
        waiting.clear();
        for (const n of held) waiting.add(n);
        depth = walk(group, depth);
      }
    }
  if (!stopped) closeBatch(batch.length > 0 && batchMayStart(c, batch));
  // Plan order, whatever pass started them: PRs ahead before the runs that stack them.
  const at = (a: Action): number => ('prNumber' in a ? (c.pos.get(a.prNumber) ?? Infinity) : Infinity);
  return out.sort((a, b) => at(a) - at(b));
};
