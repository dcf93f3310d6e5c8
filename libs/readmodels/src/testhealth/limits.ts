import { DEFAULT_MAX_RUNS_PER_TEST, DEFAULT_RETENTION_DAYS } from './projection/history';

const int = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
  return n;
};

/**
 * How much run history the test-health models keep, from RAILYARD_TEST_HISTORY_MAX_RUNS and
 * RAILYARD_TEST_HISTORY_DAYS. Every process holding these models (embedded server, projector) must
 * read the same values, or a rebuild would give other histories.
 */
export const testHealthLimitsFromEnv = (env: NodeJS.ProcessEnv): { maxRunsPerTest: number; retentionDays: number } => ({
  maxRunsPerTest: int('RAILYARD_TEST_HISTORY_MAX_RUNS', env.RAILYARD_TEST_HISTORY_MAX_RUNS, DEFAULT_MAX_RUNS_PER_TEST, 10, 100_000),
  retentionDays: int('RAILYARD_TEST_HISTORY_DAYS', env.RAILYARD_TEST_HISTORY_DAYS, DEFAULT_RETENTION_DAYS, 1, 3650),
});
