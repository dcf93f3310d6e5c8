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

/** The runs of one issue-15 workload over its seeds (`<prefix>-s1` … `-s5`), in seed order. */
const seeds = (results: readonly SimResult[], prefix: string): SimResult[] =>
  results.filter((r) => r.workload.startsWith(`${prefix}-s`)).sort((a, b) => a.seed - b.seed);

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Innocent ejections over the good PRs of every seed; null unless all 5 seeds ran. */
const innocentShare = (runs: readonly SimResult[]): number | null => {
  if (runs.length < 5) return null;
  const good = runs.reduce((a, r) => a + Math.round(r.prs * (1 - r.realizedFailureRate)), 0);
  return runs.reduce((a, r) => a + r.innocentEjections, 0) / Math.max(1, good);
};

const runsPerMerge = (runs: readonly SimResult[]): number | null =>
  runs.length < 5 ? null : mean(runs.map((r) => r.ciRunsPerMerge ?? Number.NaN));

/** Issue 15's targets: innocent ejections and the CI they cost, in single, batch and parallel mode, over 5 seeds. */
const flakeTargets = (results: readonly SimResult[]): TargetCheck[] => {
  const out: TargetCheck[] = [];
  for (const kind of ['single', 'batch4', 'parallel'] as const) {
    const retry = seeds(results, `flakes-${kind}-retry`);
    const off = seeds(results, `flakes-${kind}-off`);
    const names = retry.map((r) => r.workload);
    out.push(
      check(
        `flakes, ${kind}: innocent ejections, % of good PRs, with flakeRetries 1 (3,000 PRs x 5 seeds)`,
        names,
        ((v) => (v === null ? null : v * 100))(innocentShare(retry)),
        '<= 0.1',
        (v) => v <= 0.1,
      ),
    );
    // Single mode is held to today's flaky-antiflake-on (1.369: flakes-single-off-s1 is that workload
    // without re-runs); the others to their own runs without re-runs, seed for seed.
    const base = kind === 'single' ? (off.find((r) => r.seed === 1)?.ciRunsPerMerge ?? null) : runsPerMerge(off);
    const rpm = runsPerMerge(retry);
    out.push(
      check(
        `flakes, ${kind}: CI runs per merge with re-runs vs ${kind === 'single' ? "today's flaky-antiflake-on (flakes-single-off-s1)" : 'without (mean of 5 seeds each)'}`,
        kind === 'single' ? [...names, 'flakes-single-off-s1'] : [...names, ...off.map((r) => r.workload)],
        rpm !== null && base !== null && base > 0 ? rpm / base : null,
        '<= 1.05',
        (v) => v <= 1.05,
      ),
    );
  }
  return out;
};

/**
 * The targets, on the workloads in bench/workloads that stand for them (docs/simulator.md says why
 * each workload is shaped as it is).
 */
export const evaluateTargets = (results: readonly SimResult[]): TargetCheck[] => {
  const single = find(results, 'single-p10-c08');
  const batch = find(results, 'batch4-p05');
  const batchLean = find(results, 'batch4-p05-c02');
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
      // Issue 26: 16 lanes of 8 reach 15.5× on their bound; D346's shallowest-first starts reach 15.1×.
      'parallel, 16 disjoint areas: merges/hour vs single mode at the same p and T',
      ['parallel-a16', 'single-p10-c08'],
      ratio(lanes, single),
      '>= 15',
      (v) => v >= 15,
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
    check(
      'batching b = 4, p = 5%, concurrency 2: CI runs per merge',
      ['batch4-p05-c02'],
      batchLean?.ciRunsPerMerge,
      '<= 0.45',
      (v) => v <= 0.45,
    ),
    check(
      'batching b = 4, p = 5%, concurrency 2: p95 minutes in queue vs batch4-p05',
      ['batch4-p05-c02', 'batch4-p05'],
      batchLean?.p95TimeInQueueMin != null && batch?.p95TimeInQueueMin ? batchLean.p95TimeInQueueMin / batch.p95TimeInQueueMin : null,
      '<= 1',
      (v) => v <= 1,
    ),
    ...flakeTargets(results),
  ];
};
