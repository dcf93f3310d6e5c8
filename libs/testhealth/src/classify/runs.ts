import { branchMatches } from './branch-glob';
import { isOutageUpload } from './outage-guard';
import type { ClassificationRules } from './rules';
import type { TestRun } from './types';

/** A run ready for the monitors: time parsed, outcome split into the two readings they need. */
export interface TimedRun {
  t: number;
  run: TestRun;
  /** Some attempt failed (failed or flaky): evidence of unreliability. */
  failedAttempt: boolean;
  /** The run ended failed: evidence of breakage. A flaky run ended passing. */
  endedFailed: boolean;
  onProtectedBranch: boolean;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export function timeOf(iso: string): number | undefined {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * Runs that count as evidence, oldest first: not skipped, not from the future, not from an outage
 * upload. Sorting is stable so runs with equal times keep their input order.
 */
export function evidenceOf(history: readonly TestRun[], now: number, rules: ClassificationRules): TimedRun[] {
  const runs: TimedRun[] = [];
  for (const run of history) {
    const t = timeOf(run.at);
    if (t === undefined || t > now || run.outcome === 'skipped') continue;
    if (isOutageUpload(run.upload, rules.outageGuard)) continue;
    runs.push({
      t,
      run,
      failedAttempt: run.outcome === 'failed' || run.outcome === 'flaky',
      endedFailed: run.outcome === 'failed',
      onProtectedBranch: branchMatches(run.branch, rules.protectedBranches),
    });
  }
  return runs.sort((a, b) => a.t - b.t);
}

export const shortSha = (sha: string): string => sha.slice(0, 7);

export function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}
