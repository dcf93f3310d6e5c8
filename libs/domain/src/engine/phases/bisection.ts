import type { Entry, TestRun } from '../../state';
import type { Action } from '../actions';
import { inPlanOrder, isStackable, mergedPrefix, record, testingRuns, type Ctx, type Phase } from '../context';
import { currentRun, isRunNeeded } from '../runs';
import { successorsStillTesting } from './successors';
import { failedGenuinely, retryDecision } from './retries';
import { busyRuns, stackFor, startRunAction } from './stacks';

/**
 * Whether the last PR of a failed batch, convicted because its batch-mates were cleared, is tested
 * alone before it is blamed: when re-runs are on and the batch's failure may be a flake, the
 * inference may rest on a flake (docs/engine.md, Flakes).
 */
export const verifiesInference = (c: Ctx, run: TestRun): boolean => c.s.settings.flakeRetries > 0 && !failedGenuinely(c, run);

const skipping = (c: Ctx): boolean => c.s.settings.optimizationMode === 'bisection_skip_redundant_tests';

/**
 * With bisection_skip_redundant_tests: whether the rest (`mine`) of the failed run `parent` must hold
 * its culprit, because every other PR it tested was cleared by a passing half or has merged since;
 * `proof` names a passing half when one is still known. Undefined when nothing can be concluded (a
 * half still running or failed, or a PR that left without a verdict).
 */
export const redundancy = (
  c: Ctx,
  parent: string,
  parentPrs: readonly number[],
  mine: ReadonlySet<number>,
): { proof?: string } | undefined => {
  if (!skipping(c)) return undefined;
  const cleared = new Set<number>();
  let proof: string | undefined;
  for (const r of c.s.runs.values()) {
    if (r.bisectionOf !== parent || r.status !== 'succeeded') continue;
    proof ??= r.testRunId;
    for (const n of r.prNumbers) cleared.add(n);
  }
  const others = parentPrs.filter((n) => !mine.has(n));
  if (others.length === 0 || !others.every((n) => cleared.has(n) || c.s.entries.get(n)?.state === 'merged')) return undefined;
  return proof === undefined ? {} : { proof };
};

/**
 * bisection_skip_redundant_tests: once the other parts of a failed run passed, the culprit must be
 * in the last one, so its run is not needed any more (reference trunk §4.2:
 * ABCDEF fails, ABC passes, so DEF holds the culprit). It is cancelled and its PRs are pending
 * failure as if it had failed: split further, or blamed when alone.
 */
export const skipRedundant: Phase = (c) => {
  if (!skipping(c)) return [];
  const out: Action[] = [];
  for (const run of testingRuns(c.s)) {
    if (run.bisectionOf === undefined || !isRunNeeded(c.s, run)) continue;
    const proof = redundancy(c, run.bisectionOf, run.bisectedPrs ?? [], new Set(run.prNumbers))?.proof;
    if (proof !== undefined) out.push(record({ type: 'FailByOptimization', testRunId: run.testRunId, provenBy: proof }));
  }
  return out;
};

/** The PRs pending failure on each failed run that tested several of them, in plan order. */
const failedGroups = (c: Ctx): { run: TestRun; members: Entry[] }[] => {
  const groups = new Map<string, { run: TestRun; members: Entry[] }>();
  for (const e of c.chain) {
    if (e.state !== 'pending_failure') continue;
    const run = currentRun(c.s, e);
    if (!run || run.prNumbers.length < 2) continue;
    const g = groups.get(run.testRunId);
    if (g) g.members.push(e);
    else groups.set(run.testRunId, { run, members: [e] });
  }
  return [...groups.values()];
};

/**
 * A failed group is split once everything stacked under it that has not merged is in flight again
 * and no suspect (a suspect's failure would likely be the group's too, and the restart rule retests
 * it without it; a PR that restarted would be missing under the halves, whose verdicts then prove
 * nothing about the failed run) and the anti-flake successors it waits for have finished.
 */
const mayBisect = (c: Ctx, run: TestRun, members: readonly Entry[]): boolean => {
  const unmerged = run.dependentPrs.slice(mergedPrefix(c.s, run.dependentPrs));
  if (
    unmerged.some((d) => {
      const de = c.s.entries.get(d);
      return de !== undefined && !isStackable(c.s, de);
    })
  )
    return false;
  return !successorsStillTesting(c, members);
};

/**
 * What the halves stand on: what the failed run stood on and has not merged (mayBisect waited until
 * all of it is in flight), plus what the group depends on now. In parallel mode a group may stack PRs
 * that only some of its members depend on; a half without them would answer another question, and
 * the skip rule would convict the other half for a failure of the base.
 */
const sameBase = (c: Ctx, run: TestRun, members: readonly Entry[]): Entry[] => {
  const base = new Map(stackFor(c, members).map((x) => [x.prNumber, x]));
  for (const n of run.dependentPrs) {
    const x = c.s.entries.get(n);
    if (x && x.state !== 'merged') base.set(n, x);
  }
  return inPlanOrder(c, base.values());
};

/**
 * Two halves in queue order (a single PR is retested alone). When the budget was short and only a
 * first half started, the rest is split again when its turn comes: every part is a half of the same
 * failed run, and the skip rule reasons over all of them.
 */
const halvesOf = (members: Entry[]): Entry[][] => {
  if (members.length === 1) return [members];
  const mid = Math.ceil(members.length / 2);
  return [members.slice(0, mid), members.slice(mid)];
};

/** A part of the failed run `parent` is still testing: its verdict may settle the rest without a run. */
const partTesting = (c: Ctx, parent: string): boolean => testingRuns(c.s).some((r) => r.bisectionOf === parent && isRunNeeded(c.s, r));

/**
 * The parts of a group to start now. Without the optimization both halves test at once (fastest).
 * With bisection_skip_redundant_tests they test one after the other: a first half that passes
 * convicts the rest without a run, so the second run is spent only when the first half failed. The
 * halves of a batch finish together, so testing them at once saved no run; one after the other
 * took CI runs per merge from 0.569 to 0.503 at the same p95 time in queue (batch4-p05, docs/benchmarks.md).
 */
const partsToStart = (c: Ctx, run: TestRun, members: Entry[]): Entry[][] | undefined => {
  if (!skipping(c)) return halvesOf(members);
  if (partTesting(c, run.testRunId)) return undefined;
  const proven = redundancy(c, run.testRunId, run.prNumbers, new Set(members.map((e) => e.prNumber))) !== undefined;
  // The rest after a failed first half is the other half, not yet tested: one run may clear it whole.
  const otherHalf = !proven && [...c.s.runs.values()].some((r) => r.bisectionOf === run.testRunId);
  return otherHalf ? [members] : halvesOf(members).slice(0, 1);
};

/**
 * Bisection (reference trunk §4.2): a failed batch is split in two halves, tested on the same base
 * under `bisectionConcurrency`, a budget apart from `concurrency` (at once, or one after the other
 * with bisection_skip_redundant_tests: partsToStart). Starting a half moves its PRs back to pending
 * (BISECTION_REQUIRED) and into the new run in one step (decideEngine's StartTestRun). A half that
 * fails is split again until the culprits are alone; a half that passes clears its PRs (see
 * CompleteTestRun).
 */
export const bisections: Phase = (c) => {
  if (!c.facts.target || c.s.runState === 'paused') return [];
  let budget = c.s.settings.bisectionConcurrency - busyRuns(c, true);
  const out: Action[] = [];
  for (const { run, members } of failedGroups(c)) {
    if (budget <= 0) break;
    if (!mayBisect(c, run, members)) continue;
    // A lone PR proven failing is blamed without a run (restartsAndBlame), unless the proof may rest on a flake.
    if (members.length === 1 && redundancy(c, run.testRunId, run.prNumbers, new Set([members[0]?.prNumber ?? 0])) !== undefined) {
      if (!verifiesInference(c, run)) continue;
    } else if (members.length === run.prNumbers.length) {
      // A failure that may be a flake is re-run on the same commit once before the batch is split.
      const retry = retryDecision(c, run);
      if (retry.kind === 'wait') continue;
      if (retry.kind === 'retry') {
        out.push(retry.action);
        if (run.bisection) budget--;
        continue;
      }
    }
    const parts = partsToStart(c, run, members);
    if (parts === undefined) continue;
    const base = sameBase(c, run, members);
    for (const half of parts) {
      if (budget <= 0) break;
      out.push(startRunAction(c, half, base, true));
      budget--;
    }
  }
  return out;
};
