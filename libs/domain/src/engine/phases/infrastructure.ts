import type { TestRun } from '../../state';
import type { Action } from '../actions';
import { record, testingRuns, type Phase } from '../context';
import { isRunNeeded } from '../runs';

/** Infrastructure retries of one run before it is reported stuck (docs/engine.md, "Infrastructure errors"). */
export const MAX_INFRASTRUCTURE_RETRIES = 5;

/** Wait before retry number `done + 1`: 1 s, doubling, at most 60 s (1 + 2 + 4 + 8 + 16 s in all for five). */
export const infrastructureRetryDelayMs = (done: number): number => Math.min(1000 * 2 ** done, 60_000);

/** The required contexts of a run that stand in an infrastructure error, with the latest time one was seen. */
const erroredContexts = (run: TestRun): { contexts: string[]; code: string; message: string; lastAt: number } | undefined => {
  let out: { contexts: string[]; code: string; message: string; lastAt: number } | undefined;
  for (const context of run.requiredStatuses) {
    const error = run.statuses[context]?.infrastructureError;
    if (!error) continue;
    out ??= { contexts: [], code: error.code, message: `${context}: ${error.message}`, lastAt: 0 };
    out.contexts.push(context);
    out.lastAt = Math.max(out.lastAt, Date.parse(error.at));
  }
  return out;
};

/**
 * The rule that an infrastructure error is never blamed on a PR: CI could not judge the code (the
 * check could not start, its checkout was lost, the runner crashed), so the checks are run again
 * after a backoff, up to MAX_INFRASTRUCTURE_RETRIES per run. Then the run is reported stuck, once,
 * and waits (no timeout applies to it) for an operator to mend CI and restart it; its PRs are
 * neither failed nor ejected. `requiredOutcome` treats such a status as no verdict.
 */
export const infrastructureRetries: Phase = (c) => {
  const out: Action[] = [];
  for (const run of testingRuns(c.s)) {
    if (run.stuck || !isRunNeeded(c.s, run)) continue;
    const errored = erroredContexts(run);
    if (!errored) continue;
    const done = run.infrastructureRetries ?? 0;
    if (done >= MAX_INFRASTRUCTURE_RETRIES)
      out.push(
        record({
          type: 'ReportRunStuck',
          testRunId: run.testRunId,
          code: errored.code,
          detail: `${errored.message} (still failing after ${done} retries)`,
        }),
      );
    else if (c.nowMs >= errored.lastAt + infrastructureRetryDelayMs(done))
      out.push(record({ type: 'RetryInfrastructureError', testRunId: run.testRunId, contexts: errored.contexts, code: errored.code }));
  }
  return out;
};
