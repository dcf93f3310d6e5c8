import type { QueueState, TestRun } from '../../state';
import type { RunTestResults } from '../facts';
import type { Action } from '../actions';
import { record, testingRuns, type Phase } from '../context';
import { describeTests, judgeFailure } from '../flake-rule';
import { isRunNeeded, requiredOutcome } from '../runs';
import { quarantineWaiver } from './retries';

/** Why a running run has no PR left testing on it: the word the cancellation records. */
const obsoleteReason = (s: QueueState, run: TestRun): string => {
  const states = run.prNumbers.map((n) => s.entries.get(n)?.state);
  if (states.includes('cancelled')) return 'PR_CANCELLED';
  if (states.includes('pending')) return 'TESTS_RESTARTED';
  return 'SUPERSEDED';
};

/** Runs end: cancelled once no PR tests on them any more, timed out, failed by a required status, or passed by all of them. */
export const runOutcomes: Phase = (c) => {
  const out: Action[] = [];
  const timeoutMs = c.s.settings.testingTimeoutMinutes * 60_000;
  for (const run of testingRuns(c.s)) {
    if (!isRunNeeded(c.s, run)) {
      out.push(record({ type: 'CancelTestRun', testRunId: run.testRunId, reason: obsoleteReason(c.s, run) }));
      continue;
    }
    // A stuck run waits for an operator: the time it waited is the infrastructure's, not the code's.
    if (!run.stuck && c.nowMs - Date.parse(run.createdAt) >= timeoutMs) {
      out.push(record({ type: 'CompleteTestRun', testRunId: run.testRunId, outcome: 'timed_out' }));
      continue;
    }
    const outcome = requiredOutcome(run);
    if (outcome.kind === 'passed') out.push(record({ type: 'CompleteTestRun', testRunId: run.testRunId, outcome: 'passed' }));
    if (outcome.kind === 'failed') {
      const action = failedOutcome(c.facts.testResults?.get(run.testBranchSha), run, outcome.failedContexts);
      if (action) out.push(action);
    }
  }
  return out;
};

/**
 * A failed required check, read with the run's test results (docs/engine.md, Flakes): failures only
 * of quarantined tests do not fail the run (it passes once its other checks did); otherwise the run
 * fails with what its results say (genuine, flaky or unknown), which decides re-runs and blame.
 */
const failedOutcome = (results: RunTestResults | undefined, run: TestRun, failedContexts: string[]): Action | undefined => {
  const verdict = judgeFailure(results);
  const waived = quarantineWaiver(failedContexts, verdict);
  if (waived) {
    const rest = requiredOutcome(run, new Set(waived.map((q) => q.context)));
    return rest.kind === 'passed'
      ? record({ type: 'CompleteTestRun', testRunId: run.testRunId, outcome: 'passed', quarantined: waived })
      : undefined;
  }
  // Without results nothing is added: the event reads as it always did (an absent judgement is unknown).
  const judged = verdict.kind === 'genuine' || verdict.kind === 'flaky';
  return record({
    type: 'CompleteTestRun',
    testRunId: run.testRunId,
    outcome: 'failed',
    failedContexts,
    ...(judged ? { judgement: verdict.kind, judgementDetail: describeTests(verdict.tests) } : {}),
  });
};
