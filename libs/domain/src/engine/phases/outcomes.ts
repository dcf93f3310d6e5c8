import type { QueueState, TestRun } from '../../state';
import type { Action } from '../actions';
import { record, testingRuns, type Phase } from '../context';
import { isRunNeeded, requiredOutcome } from '../runs';

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
    if (outcome.kind === 'failed')
      out.push(record({ type: 'CompleteTestRun', testRunId: run.testRunId, outcome: 'failed', failedContexts: outcome.failedContexts }));
  }
  return out;
};
