import type { ClassificationRules } from '../rules';
import { HOUR_MS, percent, type TimedRun } from '../runs';
import type { Activation } from '../types';
import { rateMonitor } from './rate-monitor';

/**
 * FLAKY on protected branches, where every failure is unexpected. Counts any failed attempt,
 * including one that passed on retry.
 */
export function failureRate(runs: readonly TimedRun[], now: number, rules: ClassificationRules): Activation[] {
  const cfg = rules.failureRate;
  if (!cfg.enabled) return [];
  return rateMonitor(
    runs.filter((r) => r.onProtectedBranch),
    now,
    {
      monitor: 'failure_rate',
      status: 'FLAKY',
      windowMs: cfg.windowHours * HOUR_MS,
      minRuns: cfg.minRuns,
      activateAt: cfg.activateAt,
      resolveBelow: cfg.resolveBelow,
      activateBelow: rules.brokenRate.enabled ? rules.brokenRate.activateAt : undefined,
      activateOnFailureOnly: false,
      isFailure: (r) => r.failedAttempt,
      describe: (v) => `failure_rate: ${percent(v.rate)} of ${v.runs} runs failed on protected branches in ${cfg.windowHours}h`,
    },
  );
}

/** BROKEN on protected branches: nearly every run ends failed. A run that passed on retry is not a failure here. */
export function brokenRate(runs: readonly TimedRun[], now: number, rules: ClassificationRules): Activation[] {
  const cfg = rules.brokenRate;
  if (!cfg.enabled) return [];
  return rateMonitor(
    runs.filter((r) => r.onProtectedBranch),
    now,
    {
      monitor: 'broken_rate',
      status: 'BROKEN',
      windowMs: cfg.windowHours * HOUR_MS,
      minRuns: cfg.minRuns,
      activateAt: cfg.activateAt,
      resolveBelow: cfg.resolveBelow,
      activateOnFailureOnly: true,
      resolvePasses: cfg.resolvePasses,
      isFailure: (r) => r.endedFailed,
      describe: (v) => `broken_rate: ${percent(v.rate)} of ${v.runs} runs failed on protected branches in ${cfg.windowHours}h`,
    },
  );
}

/**
 * BROKEN from pull-request branches, where failures are expected (work in progress): only a test
 * failing across several independent pull requests at once says the test itself is broken.
 */
export function brokenOnPullRequests(runs: readonly TimedRun[], now: number, rules: ClassificationRules): Activation[] {
  const cfg = rules.brokenOnPullRequests;
  if (!cfg.enabled) return [];
  return rateMonitor(
    runs.filter((r) => !r.onProtectedBranch),
    now,
    {
      monitor: 'broken_on_pull_requests',
      status: 'BROKEN',
      windowMs: cfg.windowHours * HOUR_MS,
      minRuns: cfg.minRuns,
      activateAt: cfg.activateAt,
      resolveBelow: cfg.resolveBelow,
      activateOnFailureOnly: true,
      resolvePasses: cfg.resolvePasses,
      distinct: {
        min: cfg.minDistinctPullRequests,
        // A branch pushed without a pull request still stands for one independent change.
        keyOf: (r) => (r.run.prNumber !== undefined ? `pr:${r.run.prNumber}` : `branch:${r.run.branch}`),
      },
      isFailure: (r) => r.endedFailed,
      describe: (v, prs) =>
        `broken_on_pull_requests: ${percent(v.rate)} of ${v.runs} runs failed across ${prs} pull requests in ${cfg.windowHours}h`,
    },
  );
}
