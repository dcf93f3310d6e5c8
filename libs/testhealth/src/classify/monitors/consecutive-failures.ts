import type { ClassificationRules } from '../rules';
import type { TimedRun } from '../runs';
import type { Activation } from '../types';

/**
 * BROKEN when protected-branch runs keep ending failed, across several commits so that one bad
 * commit retried three times does not count. Catches a break faster than the rate monitor when
 * runs are sparse. Resolves after `resolvePasses` passing runs in a row.
 */
export function consecutiveFailures(runs: readonly TimedRun[], rules: ClassificationRules): Activation[] {
  const cfg = rules.consecutiveFailures;
  if (!cfg.enabled) return [];
  const activations: Activation[] = [];
  let current: Activation | undefined;
  let failures = 0;
  let passes = 0;
  let commits = new Set<string>();
  for (const r of runs) {
    if (!r.onProtectedBranch) continue;
    if (r.endedFailed) {
      failures += 1;
      passes = 0;
      commits.add(r.run.commitSha);
      if (!current && failures >= cfg.failures && commits.size >= cfg.distinctCommits) {
        current = {
          monitor: 'consecutive_failures',
          status: 'BROKEN',
          from: r.t,
          to: null,
          reason: `consecutive_failures: ${failures} failing runs in a row across ${commits.size} commits on protected branches`,
        };
        activations.push(current);
      }
    } else {
      failures = 0;
      commits = new Set();
      passes += 1;
      if (current && passes >= cfg.resolvePasses) {
        current.to = r.t;
        current = undefined;
      }
    }
  }
  return activations;
}
