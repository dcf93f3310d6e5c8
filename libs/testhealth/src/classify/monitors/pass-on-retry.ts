import { branchMatches } from '../branch-glob';
import type { ClassificationRules } from '../rules';
import { DAY_MS, HOUR_MS, shortSha, type TimedRun } from '../runs';
import type { Activation, TestRun } from '../types';

interface Seen {
  lastPass?: number;
  lastFail?: number;
}

function where(run: TestRun): string {
  const parts = [run.prNumber !== undefined ? `PR #${run.prNumber}` : run.branch, ...(run.ciJob ? [`job ${run.ciJob}`] : [])];
  return parts.join(', ');
}

/**
 * FLAKY when the same code both failed and passed: the strongest flakiness signal, used by every
 * flaky-test product we know of. Commits and tree SHAs are both keys, so a rebased or
 * merge-queue commit with an identical tree still pairs. Several retries of one commit are one
 * detection. Resolves after `recoveryDays` without a detection and `recoveryPasses` passes since.
 */
export function passOnRetry(runs: readonly TimedRun[], now: number, rules: ClassificationRules): Activation[] {
  const cfg = rules.passOnRetry;
  if (!cfg.enabled) return [];
  const pairWindow = cfg.pairWindowHours * HOUR_MS;
  const recovery = cfg.recoveryDays * DAY_MS;
  const seen = new Map<string, Seen>();
  const detected = new Set<string>();
  const activations: Activation[] = [];
  let current: Activation | undefined;
  let lastDetection = 0;
  let passesSince = 0;
  let recoveredByPassesAt = 0;

  const resolveIfDue = (t: number) => {
    if (!current || passesSince < cfg.recoveryPasses) return;
    const resolvedAt = Math.max(lastDetection + recovery, recoveredByPassesAt);
    if (resolvedAt <= t) {
      current.to = resolvedAt;
      current = undefined;
    }
  };

  for (const r of runs) {
    if (!branchMatches(r.run.branch, cfg.branches)) continue;
    resolveIfDue(r.t);
    const job = cfg.sameJobOnly ? `@${r.run.ciJob ?? ''}` : '';
    const keys = [`c:${r.run.commitSha}${job}`, ...(r.run.treeSha ? [`t:${r.run.treeSha}${job}`] : [])];
    const passed = r.run.outcome === 'passed' || r.run.outcome === 'flaky';
    const pairs = (s: Seen | undefined) => {
      const opposite = passed ? s?.lastFail : s?.lastPass;
      return opposite !== undefined && r.t - opposite <= pairWindow;
    };
    const fresh = keys.every((k) => !detected.has(k));
    const isDetection = fresh && (r.run.outcome === 'flaky' || keys.some((k) => pairs(seen.get(k))));

    if (isDetection) {
      for (const k of keys) detected.add(k);
      lastDetection = r.t;
      passesSince = 0;
      if (!current) {
        const how = r.run.outcome === 'flaky' ? 'failed then passed on retry in one run' : 'failed and passed';
        current = {
          monitor: 'pass_on_retry',
          status: 'FLAKY',
          from: r.t,
          to: null,
          reason: `pass_on_retry: ${how} on commit ${shortSha(r.run.commitSha)} (${where(r.run)})`,
        };
        activations.push(current);
      }
    } else if (current && r.run.outcome === 'passed') {
      passesSince += 1;
      if (passesSince === cfg.recoveryPasses) recoveredByPassesAt = r.t;
    }
    for (const k of keys) {
      const s = seen.get(k) ?? {};
      if (passed) s.lastPass = r.t;
      if (r.failedAttempt) s.lastFail = r.t;
      seen.set(k, s);
    }
  }
  resolveIfDue(now);
  return activations;
}
