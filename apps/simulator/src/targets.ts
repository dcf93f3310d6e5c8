import type { SimResult } from './result';

/** One of issue 4's throughput targets, checked on simulator results. */
export interface TargetCheck {
  target: string;
  workloads: string[];
  value: number | null;
  threshold: string;
  /** null when a workload it needs was not run. */
  met: boolean | null;
}

const find = (results: readonly SimResult[], name: string): SimResult | undefined => results.find((r) => r.workload === name);

const check = (
  target: string,
  workloads: string[],
  value: number | null | undefined,
  threshold: string,
  ok: (v: number) => boolean,
): TargetCheck => {
  const v = value ?? null;
  return { target, workloads, value: v === null ? null : Math.round(v * 1000) / 1000, threshold, met: v === null ? null : ok(v) };
};

const ratio = (a: SimResult | undefined, b: SimResult | undefined): number | null =>
  a && b && b.mergesPerHour > 0 ? a.mergesPerHour / b.mergesPerHour : null;

/**
 * The targets, on the workloads in bench/workloads that stand for them (docs/simulator.md says why
 * each workload is shaped as it is).
 */
export const evaluateTargets = (results: readonly SimResult[]): TargetCheck[] => {
  const single = find(results, 'single-p10-c08');
  const batch = find(results, 'batch4-p05');
  const lanes = find(results, 'parallel-a16');
  const lanesCross = find(results, 'parallel-a16-x10');
  const flaky = find(results, 'flaky-antiflake-on');
  return [
    check(
      'single mode, concurrency 8, p = 10%: merges/hour vs the linear bound',
      ['single-p10-c08'],
      single?.fractionOfBound,
      '>= 0.95',
      (v) => v >= 0.95,
    ),
    check('batching b = 4, p = 5%: CI runs per merge', ['batch4-p05'], batch?.ciRunsPerMerge, '<= 0.6', (v) => v <= 0.6),
    check(
      'parallel, 16 disjoint areas: merges/hour vs single mode at the same p and T',
      ['parallel-a16', 'single-p10-c08'],
      ratio(lanes, single),
      '>= 10',
      (v) => v >= 10,
    ),
    check(
      'parallel, 16 areas + 10% cross-cutting: merges/hour vs single mode (for reference)',
      ['parallel-a16-x10', 'single-p10-c08'],
      ratio(lanesCross, single),
      '>= 10',
      (v) => v >= 10,
    ),
    check(
      'flaky-heavy, anti-flake on: innocent ejections per PR',
      ['flaky-antiflake-on'],
      flaky ? flaky.innocentEjections / flaky.prs : null,
      '<= 0.01',
      (v) => v <= 0.01,
    ),
  ];
};
