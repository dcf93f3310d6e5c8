import { isOutageUpload } from './outage-guard';
import { DEFAULT_CLASSIFICATION_RULES, type ClassificationRules } from './rules';
import { DAY_MS, timeOf } from './runs';
import type { TestRun } from './types';

const WEEK_MS = 7 * DAY_MS;

function lastWeek(history: readonly TestRun[], now: Date, rules: ClassificationRules): TestRun[] {
  const end = now.getTime();
  return history.filter((r) => {
    const t = timeOf(r.at);
    return t !== undefined && t > end - WEEK_MS && t <= end && !isOutageUpload(r.upload, rules.outageGuard);
  });
}

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

/** Share of non-skipped runs over the last 7×24 hours that ended failed (0 with no runs). */
export function failureRateLast7d(
  history: readonly TestRun[],
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
): number {
  const ran = lastWeek(history, now, rules).filter((r) => r.outcome !== 'skipped');
  return ran.length === 0 ? 0 : ran.filter((r) => r.outcome === 'failed').length / ran.length;
}
