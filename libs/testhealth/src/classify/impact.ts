import { isOutageUpload } from './outage-guard';
import { DEFAULT_CLASSIFICATION_RULES, type ClassificationRules } from './rules';
import { DAY_MS, timeOf } from './runs';
import type { TestRun } from './types';

const WEEK_MS = 7 * DAY_MS;

/** Runs within `windowMs` up to `now`, outage uploads left out. */
function within(history: readonly TestRun[], now: Date, windowMs: number, rules: ClassificationRules): TestRun[] {
  const end = now.getTime();
  return history.filter((r) => {
    const t = timeOf(r.at);
    return t !== undefined && t > end - windowMs && t <= end && !isOutageUpload(r.upload, rules.outageGuard);
  });
}

const lastWeek = (history: readonly TestRun[], now: Date, rules: ClassificationRules): TestRun[] => within(history, now, WEEK_MS, rules);

/**
 * Distinct pull requests with at least one run of this test that failed an attempt, over the last
 * 7×24 hours. A flake that passed on retry still cost its pull request a retry, so it counts;
 * quarantined failures count too (the test still hurt, it just stopped blocking).
 */
export function pullRequestsImpactedLast7d(
  history: readonly TestRun[],
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
): number {
  const prs = new Set<number>();
  for (const r of lastWeek(history, now, rules)) {
    if (r.prNumber !== undefined && (r.outcome === 'failed' || r.outcome === 'flaky')) prs.add(r.prNumber);
  }
  return prs.size;
}

/** Share of non-skipped runs within `windowMs` up to `now` that ended failed (0 with no runs). */
function failureRateWithin(history: readonly TestRun[], now: Date, windowMs: number, rules: ClassificationRules): number {
  const ran = within(history, now, windowMs, rules).filter((r) => r.outcome !== 'skipped');
  return ran.length === 0 ? 0 : ran.filter((r) => r.outcome === 'failed').length / ran.length;
}

/** Share of non-skipped runs over the last 7×24 hours that ended failed (0 with no runs). */
export function failureRateLast7d(
  history: readonly TestRun[],
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
): number {
  return failureRateWithin(history, now, WEEK_MS, rules);
}

/** The same over the last 24 hours. */
export function failureRateLast24h(
  history: readonly TestRun[],
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
): number {
  return failureRateWithin(history, now, DAY_MS, rules);
}

/**
 * Runs of the test that failed an attempt (failed, or flaky: failed, then passed on a retry) at or
 * after `from` and before `to`: what makes it one of list-failing-tests' tests for that range.
 */
export function failuresBetween(history: readonly TestRun[], from: Date, to: Date): number {
  let failures = 0;
  for (const r of history) {
    const t = timeOf(r.at);
    if (t !== undefined && t >= from.getTime() && t < to.getTime() && (r.outcome === 'failed' || r.outcome === 'flaky')) failures++;
  }
  return failures;
}
