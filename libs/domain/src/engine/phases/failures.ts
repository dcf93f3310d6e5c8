import type { Entry, TestRun } from '../../state';
import type { Action } from '../actions';
import {
  awaitsExplanation,
  heldOnUnknownFailure,
  holdsPlace,
  isSuspect,
  mergedPrefix,
  record,
  steppedAside,
  testingRuns,
  type Ctx,
  type Phase,
} from '../context';
import { currentRun, isRunNeeded } from '../runs';
import { staleness } from '../staleness';
import { redundancy, verifiesInference } from './bisection';
import { failedGenuinely, retryDecision } from './retries';
import { successorsStillTesting, wantsWitness } from './successors';

/**
 * canOptimisticallyMerge: a run that passed with PRs stacked under it proves them. A suspect (pending
 * failure, or being bisected) is cleared this way only when the queue waits for successors
 * (pendingFailureDepth > 0): that is the anti-flake protection of reference trunk §4.4. Without
 * optimistic merging a PR must pass its own run to merge: a run stacked on a PR held on a failure of
 * unknown kind only vouches for it (Entry.successorPassed, D336).
 */
export const optimisticPasses: Phase = (c) => {
  if (!c.s.settings.canOptimisticallyMerge) return [];
  const out: Action[] = [];
  const proven = new Set<number>();
  const antiFlake = c.s.settings.pendingFailureDepth > 0;
  for (const e of c.chain) {
    const run = currentRun(c.s, e);
    if (e.state !== 'tests_passed' || !run || run.status !== 'succeeded' || !run.prNumbers.includes(e.prNumber)) continue;
    if (staleness(c, e, run) !== undefined) continue;
    for (const d of run.dependentPrs) {
      const de = c.s.entries.get(d);
      // The run must still predict d's own merge: something d depends on may have come back since.
      if (!de || proven.has(d) || staleness(c, de, run) !== undefined) continue;
      const suspect = isSuspect(c.s, de);
      // A PR holding its place on a failure of unknown kind is cleared by the first run behind it that passes (D322).
      if ((de.state === 'testing' && !suspect) || (suspect && antiFlake) || heldOnUnknownFailure(c.s, de)) {
        proven.add(d);
        out.push(record({ type: 'PassBySuccessor', prNumber: d, testRunId: run.testRunId }));
      }
    }
  }
  return out;
};

const failureDetail = (run: TestRun): string => {
  const parts = run.failedContexts.map((ctx) => {
    const url = run.statuses[ctx]?.url;
    return url ? `${ctx} (${url})` : ctx;
  });
  return `required status check(s) failed: ${parts.join(', ') || 'unknown'}`;
};

/** What the failure of a PR found alone is blamed on: its own run failing, or bisection's inference. */
const blame = (e: Entry, run: TestRun, inferred: boolean): Action =>
  inferred
    ? record({
        type: 'FailPr',
        prNumber: e.prNumber,
        reason: 'TEST_RUN_FAILED_BY_OPTIMIZATION',
        detail: 'a batch holding this PR failed and the other half of its bisection passed, so this PR broke it; its own run was skipped',
        testRunId: run.testRunId,
      })
    : record({
        type: 'FailPr',
        prNumber: e.prNumber,
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        detail: failureDetail(run),
        testRunId: run.testRunId,
      });

/**
 * Runs that no longer predict their merge restart. A PR pending failure on a run of its own is
 * blamed once everything stacked under it merged (so the failure is its own) and the
 * `pendingFailureDepth` successors that stacked it have finished; when a PR under it failed
 * instead, the staleness rule restarts it without that PR. Failed batches are bisected, not blamed.
 */
export const restartsAndBlame: Phase = (c) => {
  const restarts: Action[] = [];
  for (const e of c.chain) {
    const run = currentRun(c.s, e);
    if (!run) continue;
    const reason = staleness(c, e, run);
    if (reason) restarts.push(record({ type: 'RestartTests', prNumber: e.prNumber, reason }));
  }
  if (restarts.length > 0) return restarts;
  // A PR that still wants a witness is left to unwitnessedBlame, after the starts phase.
  return blameSettled(c, (e) => !wantsWitness(c, e));
};

/**
 * A PR held on a failure of unknown kind whose re-runs failed is ejected only once no run stacked on it
 * can still vouch for it: while one is testing it waits, and that run passing earns it another re-run
 * (flakeRetriesFor), failing makes it step aside (D336). The runs behind wait for it anyway.
 */
const awaitsVoucher = (c: Ctx, e: Entry): boolean =>
  e.successorPassed !== true &&
  heldOnUnknownFailure(c.s, e) &&
  testingRuns(c.s).some((r) => r.dependentPrs.includes(e.prNumber) && isRunNeeded(c.s, r));

/** PRs pending failure whose failure is their own and whose anti-flake window is closed, if `ready` says so. */
const blameSettled = (c: Ctx, ready: (e: Entry) => boolean): Action[] => {
  const blamed: Action[] = [];
  for (const e of c.chain) {
    const run = currentRun(c.s, e);
    if (e.state !== 'pending_failure' || !run || !ready(e)) continue;
    // Alone on its run, or the last of a failed batch whose other PRs bisection cleared.
    const provenAlone = run.prNumbers.length > 1 && redundancy(c, run.testRunId, run.prNumbers, new Set([e.prNumber])) !== undefined;
    if (run.prNumbers.length !== 1 && !provenAlone) continue;
    // An inference that may rest on a flake is tested alone first (bisections).
    if (provenAlone && verifiesInference(c, run)) continue;
    // What the run stacked under its tested PRs must have merged; batch-mates cleared by bisection need not.
    const deps = run.dependentPrs;
    const depsMerged = mergedPrefix(c.s, deps) === deps.length;
    // A genuine failure (a healthy test failed) stands at once: no successor can prove it a flake.
    const genuine = failedGenuinely(c, run);
    // Beside the queue the re-run starts at once: it tests the same commit, and nobody waits for it
    // (stepped aside) or the runs stacked on the PR wait for it anyway (it holds its place).
    const beside = steppedAside(c.s, e) || holdsPlace(c.s, run);
    if (!beside && (!depsMerged || (!genuine && successorsStillTesting(c, [e])))) continue;
    // Before anyone is blamed, a failure that may be a flake is re-run on the same commit (flakeRetries).
    const retry = provenAlone ? { kind: 'none' as const } : retryDecision(c, run);
    if (retry.kind === 'wait' || (retry.kind === 'none' && (!depsMerged || awaitsVoucher(c, e) || awaitsExplanation(c.s, e, run))))
      continue;
    blamed.push(retry.kind === 'retry' ? retry.action : blame(e, run, provenAlone || (run.bisection && run.status === 'cancelled')));
  }
  return blamed;
};

/**
 * A PR that failed alone and still wants a witness (wantsWitness) is blamed here, after the starts
 * phase: plan reaches this phase only in a round where no earlier one acted, so no run that could
 * stack it is starting. Waiting for a start that cannot come (nothing behind it, a paused queue, runs
 * behind held for this very PR) would stall the queue; this way it never waits past a quiet round.
 */
export const unwitnessedBlame: Phase = (c) => blameSettled(c, (e) => wantsWitness(c, e));
