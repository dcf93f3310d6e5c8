import { consecutiveFailures } from './monitors/consecutive-failures';
import { passOnRetry } from './monitors/pass-on-retry';
import { brokenOnPullRequests, brokenRate, failureRate } from './monitors/rate-monitors';
import { DEFAULT_CLASSIFICATION_RULES, type ClassificationRules } from './rules';
import { evidenceOf, timeOf } from './runs';
import type { Activation, ActiveMonitor, Classification, TestRun, TestStatus } from './types';

const SEVERITY: Record<TestStatus, number> = { HEALTHY: 0, FLAKY: 1, BROKEN: 2 };

const activeAt = (a: Activation, t: number): boolean => a.from <= t && (a.to === null || a.to > t);

function statusAt(activations: readonly Activation[], t: number): TestStatus {
  let status: TestStatus = 'HEALTHY';
  for (const a of activations) if (activeAt(a, t) && SEVERITY[a.status] > SEVERITY[status]) status = a.status;
  return status;
}

/** Every monitor's activity over the test's whole history, as intervals. */
export function monitorActivations(
  history: readonly TestRun[],
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
): Activation[] {
  const t = now.getTime();
  const runs = evidenceOf(history, t, rules);
  return [
    ...consecutiveFailures(runs, rules),
    ...brokenRate(runs, t, rules),
    ...brokenOnPullRequests(runs, t, rules),
    ...passOnRetry(runs, t, rules),
    ...failureRate(runs, t, rules),
  ];
}

/**
 * Status of one test at `now`, replayed from its runs alone: monitors are evaluated at every
 * instant their input changes, so hysteresis needs no stored state and `since` is exact.
 * Precedence BROKEN > FLAKY > HEALTHY; a status lasts until every monitor behind it resolved.
 */
export function classify(
  history: readonly TestRun[],
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
): Classification {
  const nowMs = now.getTime();
  const activations = monitorActivations(history, now, rules);

  const firstSeen = history.reduce<number | undefined>((min, r) => {
    const t = timeOf(r.at);
    return t === undefined || t > nowMs || (min !== undefined && min <= t) ? min : t;
  }, undefined);

  const boundaries = [...new Set(activations.flatMap((a) => (a.to === null ? [a.from] : [a.from, a.to])))].sort((a, b) => a - b);
  let status: TestStatus = 'HEALTHY';
  let since = firstSeen;
  for (const b of boundaries) {
    const next = statusAt(activations, b);
    if (next !== status) {
      status = next;
      since = b;
    }
  }

  const active = activations.filter((a) => activeAt(a, nowMs)).sort((a, b) => SEVERITY[b.status] - SEVERITY[a.status] || a.from - b.from);
  const monitors: ActiveMonitor[] = active.map((a) => ({
    monitor: a.monitor,
    status: a.status,
    since: new Date(a.from).toISOString(),
    reason: a.reason,
  }));

  let reason: string;
  const lead = active[0];
  if (lead) reason = lead.reason;
  else {
    const lastResolved = activations.filter((a) => a.to !== null).sort((a, b) => (b.to ?? 0) - (a.to ?? 0))[0];
    reason = lastResolved ? `healthy: ${lastResolved.monitor} resolved` : 'healthy: no monitor active';
  }
  return { status, reason, since: since === undefined ? null : new Date(since).toISOString(), monitors };
}
