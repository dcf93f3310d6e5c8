import { type TimedRun } from '../runs';
import type { Activation, MonitorName, TestStatus } from '../types';
import { RateWindow, type WindowView } from './rate-window';

export interface RateMonitorSpec {
  monitor: MonitorName;
  status: Exclude<TestStatus, 'HEALTHY'>;
  windowMs: number;
  minRuns: number;
  activateAt: number;
  resolveBelow: number;
  /** Rates at or above this are left to a broken monitor: such a test is not merely flaky. */
  activateBelow?: number;
  /**
   * Activate only when a failure arrives. Needed when passes can resolve the monitor: otherwise a
   * window still full of old failures would re-activate it right after three fresh passes.
   */
  activateOnFailureOnly: boolean;
  /** Resolve after this many non-failing runs in a row, whatever the rate. */
  resolvePasses?: number;
  /** Also require this many distinct keys (e.g. pull requests) among the window's runs. */
  distinct?: { min: number; keyOf: (r: TimedRun) => string };
  isFailure: (r: TimedRun) => boolean;
  describe: (view: WindowView, distinct: number) => string;
}

function distinctIn(runs: readonly TimedRun[], view: WindowView, keyOf: (r: TimedRun) => string): number {
  const keys = new Set<string>();
  for (let i = view.from; i < view.to; i += 1) {
    const r = runs[i];
    if (r) keys.add(keyOf(r));
  }
  return keys.size;
}

/**
 * A failure-rate monitor with hysteresis: it activates at `activateAt` and resolves only below
 * `resolveBelow`, so a rate hovering around one threshold does not flap. Windows with fewer than
 * `minRuns` runs neither activate nor resolve it (too little evidence either way).
 */
export function rateMonitor(runs: readonly TimedRun[], now: number, spec: RateMonitorSpec): Activation[] {
  const window = new RateWindow(runs, spec.windowMs, spec.isFailure);
  const activations: Activation[] = [];
  let current: Activation | undefined;
  for (const c of window.checkpoints(now)) {
    const view = window.at(c);
    const enough = view.runs >= spec.minRuns;
    if (current) {
      const byRate = enough && view.rate < spec.resolveBelow;
      const byPasses = spec.resolvePasses !== undefined && view.passStreak >= spec.resolvePasses;
      if (byRate || byPasses) {
        current.to = c;
        current = undefined;
      }
      continue;
    }
    if (!enough || view.rate < spec.activateAt) continue;
    if (spec.activateBelow !== undefined && view.rate >= spec.activateBelow) continue;
    if (spec.activateOnFailureOnly && !view.failureArrived) continue;
    const distinct = spec.distinct ? distinctIn(runs, view, spec.distinct.keyOf) : 0;
    if (spec.distinct && distinct < spec.distinct.min) continue;
    current = { monitor: spec.monitor, status: spec.status, from: c, to: null, reason: spec.describe(view, distinct) };
    activations.push(current);
  }
  return activations;
}
