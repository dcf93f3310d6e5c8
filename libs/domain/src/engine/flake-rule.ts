import type { FailureJudgement } from '../events-engine';
import type { FailingTest, RunTestResults } from './facts';

/**
 * What a failed run's test results say of its failure: the one place the queue decides whether a
 * failure may be a flake (docs/engine.md, Flakes).
 * - `quarantined`: every failing test is quarantined, so the run does not fail;
 * - `genuine`: a failing test is healthy, broken or new: the failure stands at once, no re-run;
 * - `flaky`: every failing test is classified flaky (quarantined ones aside): re-run before blaming;
 * - `unknown`: no results name a failing test: nothing proves the failure real, so it may be re-run.
 */
export type FailureVerdict =
  | { kind: 'quarantined'; tests: readonly FailingTest[] }
  | { kind: Exclude<FailureJudgement, 'unknown'>; tests: readonly FailingTest[] }
  | { kind: 'unknown'; tests: readonly FailingTest[] };

const REAL = new Set(['healthy', 'broken', 'new']);

export const judgeFailure = (results: RunTestResults | undefined): FailureVerdict => {
  const failing = results?.failing ?? [];
  if (failing.length === 0) return { kind: 'unknown', tests: [] };
  const real = failing.filter((t) => REAL.has(t.health));
  if (real.length > 0) return { kind: 'genuine', tests: real };
  const flaky = failing.filter((t) => t.health === 'flaky');
  if (flaky.length > 0) return { kind: 'flaky', tests: flaky };
  return { kind: 'quarantined', tests: failing };
};

/** How the history names the tests behind a verdict: `name (health)`, a few of them and a count. */
export const describeTests = (tests: readonly FailingTest[], limit = 5): string => {
  const shown = tests.slice(0, limit).map((t) => `${t.name} (${t.health})`);
  const more = tests.length > limit ? ` and ${tests.length - limit} more` : '';
  return `${shown.join(', ')}${more}`;
};
