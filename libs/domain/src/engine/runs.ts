import type { Entry, QueueState, TestRun } from '../state';

/** The PRs a run stacked, in merge order: the dependents ahead, then the tested ones. */
export const stackOf = (run: TestRun): number[] => [...run.dependentPrs, ...run.prNumbers];

/** Tree and commit the stack stood at before PR `index` was added; undefined when the run did not record them. */
export const beforeStep = (run: TestRun, index: number): { sha: string; tree: string } | undefined => {
  if (index === 0) return run.baseTree === undefined ? undefined : { sha: run.baseSha, tree: run.baseTree };
  const step = run.steps[index - 1];
  return step && { sha: step.sha, tree: step.tree };
};

export const afterStep = (run: TestRun, index: number): { sha: string; tree: string } | undefined => {
  const step = run.steps[index];
  return step && { sha: step.sha, tree: step.tree };
};

const IN_FLIGHT = new Set(['testing', 'tests_passed', 'pending_failure']);
export const isInFlight = (e: Entry): boolean => IN_FLIGHT.has(e.state);

/** The run deciding an entry in flight; a waiting entry has none, whatever run it last had. */
export const currentRun = (s: QueueState, e: Entry): TestRun | undefined =>
  isInFlight(e) && e.testRunId !== undefined ? s.runs.get(e.testRunId) : undefined;

/** A run is still worth running while one of its tested PRs is testing on it. */
export const isRunNeeded = (s: QueueState, run: TestRun): boolean =>
  run.prNumbers.some((n) => {
    const e = s.entries.get(n);
    return e !== undefined && e.state === 'testing' && e.testRunId === run.testRunId;
  });

export type RequiredOutcome = { kind: 'passed' } | { kind: 'failed'; failedContexts: string[] } | { kind: 'waiting' };

/**
 * Failure wins as soon as one required status fails; success needs every required status green.
 * `waived`: checks that failed only through quarantined tests (docs/engine.md, Flakes) count as green.
 * An infrastructure error is no failure: the code was never judged, so the run waits for the check
 * to be run again (`infrastructureRetries`).
 */
export const requiredOutcome = (run: TestRun, waived: ReadonlySet<string> = new Set()): RequiredOutcome => {
  const failing = (c: string): boolean => {
    const st = run.statuses[c];
    return st !== undefined && (st.state === 'failure' || st.state === 'error') && st.infrastructureError === undefined;
  };
  const failed = run.requiredStatuses.filter((c) => failing(c) && !waived.has(c));
  if (failed.length > 0) return { kind: 'failed', failedContexts: failed };
  return run.requiredStatuses.every((c) => run.statuses[c]?.state === 'success' || (waived.has(c) && failing(c)))
    ? { kind: 'passed' }
    : { kind: 'waiting' };
};
