import { DEFAULT_SETTINGS } from '@railyard/domain';
import { batchedLinearBound, dorfmanRunsPerChange, effectiveFailureRate, linearSpeculationBound } from './bound';
import type { Workload } from './workload';
import type { World } from './world';

/** One workload's result: the JSON line `npm run simulate` prints. Rates are per simulated hour. */
export interface SimResult {
  workload: string;
  mode: string;
  seed: number;
  prs: number;
  mergesPerHour: number;
  /** The linear-speculation bound (reference peers §2.7) at the workload's p, T and concurrency. */
  boundMergesPerHour: number;
  fractionOfBound: number;
  ciRunsPerMerge: number | null;
  boundCiRunsPerMerge: number;
  p50TimeInQueueMin: number | null;
  p95TimeInQueueMin: number | null;
  /** Good PRs failed by a test verdict (flakes blamed on them). */
  innocentEjections: number;
  /** Bad PRs merged (only possible when a test misses a breakage). */
  badMerges: number;
  /** Runs CI failed spuriously (and reported). */
  flakes: number;
  concurrency: number;
  effectiveFailureRate: number;
  realizedFailureRate: number;
  ciMinutes: number;
  merged: number;
  failed: number;
  unfinished: number;
  culpritEjections: number;
  conflictEjections: number;
  timeouts: number;
  badMergesOptimistic: number;
  ciMinutesPerMerge: number | null;
  bisectionRunsPerMerge: number | null;
  /** Re-runs of failed runs on the same commit (flakeRetries) per merge, in the window; part of ciRunsPerMerge. */
  flakeRetriesPerMerge: number | null;
  /** Re-runs started, PRs they cleared (FLAKE_RETRIED), and runs passed because only quarantined tests failed (whole run). */
  flakeRetries: number;
  flakeRetriedPasses: number;
  quarantinedPasses: number;
  /** Innocent ejections per good PR submitted. */
  innocentEjectionRate: number;
  meanPrsPerRun: number | null;
  runsCancelled: number;
  bisectionRuns: number;
  windowHours: number;
  windowMerges: number;
  saturation: number;
  meanWaiting: number;
  simulatedHours: number;
  /** Simulated time from the start to the last PR's end, for short workloads (bench calibrate). */
  simulatedSeconds: number;
  plannerRounds: number;
  restarts: Record<string, number>;
  failures: Record<string, number>;
  batchSize?: number;
  /** Group testing's expected runs per change at this p and batch size. */
  dorfmanRunsPerMerge?: number;
  /** Linear speculation over batches, culprit finding free: an upper bound for batching. */
  batchedBoundMergesPerHour?: number;
  areas?: number;
  /** Each area its own linear lane at concurrency / areas, ignoring cross-cutting PRs. */
  laneBoundMergesPerHour?: number;
}

/** The bound's T: the mean CI duration (a lognormal's mean is its median times exp(sigma²/2)). */
export const meanCiMinutes = (w: Workload): number =>
  w.ci.distribution === 'fixed' ? w.ci.durationMinutes : w.ci.durationMinutes * Math.exp((w.ci.sigma * w.ci.sigma) / 2);

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
const roundOrNull = (n: number | null, digits = 2): number | null => (n === null ? null : round(n, digits));

export const buildResult = (
  workload: Workload,
  w: World,
  run: { from: number; to: number; generated: number; plannerRounds: number },
): SimResult => {
  const settings = { ...DEFAULT_SETTINGS, ...workload.queue };
  const { from, to, generated } = run;
  const measured = w.metrics.window(from, to, w.ci);
  const p = effectiveFailureRate({ failureRate: workload.failureRate, flakeRate: workload.flakeRate });
  const T = meanCiMinutes(workload);
  const bound = linearSpeculationBound(p, T, settings.concurrency);
  let flakes = 0;
  for (const r of w.ci.all()) if (r.flaked && r.reported && r.startedAt >= from && r.startedAt <= to) flakes++;
  let bad = 0;
  for (const pr of w.prs.values()) if (pr.bad) bad++;
  const counts = { merged: 0, failed: 0, cancelled: 0 };
  for (const state of w.ended.values()) if (state === 'merged' || state === 'failed' || state === 'cancelled') counts[state]++;
  const m = w.metrics;

  const result: SimResult = {
    workload: workload.name,
    mode: settings.mode,
    seed: workload.seed,
    prs: generated,
    mergesPerHour: round(measured.mergesPerHour),
    boundMergesPerHour: round(bound.mergesPerHour),
    fractionOfBound: round(measured.mergesPerHour / bound.mergesPerHour, 3),
    ciRunsPerMerge: roundOrNull(measured.ciRunsPerMerge, 3),
    boundCiRunsPerMerge: round(bound.ciRunsPerMerge, 3),
    p50TimeInQueueMin: roundOrNull(measured.p50TimeInQueueMin, 1),
    p95TimeInQueueMin: roundOrNull(measured.p95TimeInQueueMin, 1),
    innocentEjections: m.innocentEjections,
    badMerges: m.badMerges,
    flakes,
    concurrency: settings.concurrency,
    effectiveFailureRate: round(p, 4),
    realizedFailureRate: round(bad / Math.max(1, generated), 4),
    ciMinutes: round(T, 1),
    merged: counts.merged,
    failed: counts.failed,
    unfinished: generated - counts.merged - counts.failed - counts.cancelled,
    culpritEjections: m.culpritEjections,
    conflictEjections: m.conflictEjections,
    timeouts: m.timeouts,
    badMergesOptimistic: m.badMergesOptimistic,
    ciMinutesPerMerge: roundOrNull(measured.ciMinutesPerMerge, 1),
    bisectionRunsPerMerge: roundOrNull(measured.bisectionRunsPerMerge, 3),
    flakeRetriesPerMerge: roundOrNull(measured.flakeRetriesPerMerge, 3),
    flakeRetries: m.flakeRetries,
    flakeRetriedPasses: m.flakeRetriedPasses,
    quarantinedPasses: m.quarantinedPasses,
    innocentEjectionRate: round(m.innocentEjections / Math.max(1, generated - bad), 5),
    meanPrsPerRun: roundOrNull(measured.meanPrsPerRun, 2),
    runsCancelled: m.runsCancelled,
    bisectionRuns: m.bisectionRuns,
    windowHours: round(measured.hours, 1),
    windowMerges: measured.merges,
    saturation: round(measured.saturation, 3),
    meanWaiting: round(measured.meanWaiting, 1),
    simulatedHours: round(w.now / 3_600_000, 1),
    simulatedSeconds: round(w.now / 1000, 1),
    plannerRounds: run.plannerRounds,
    restarts: { ...m.restarts },
    failures: { ...m.failures },
  };
  if (settings.batch) {
    const b = settings.batchingMinSize;
    result.batchSize = b;
    result.dorfmanRunsPerMerge = round(dorfmanRunsPerChange(p, b), 3);
    result.batchedBoundMergesPerHour = round(batchedLinearBound(p, T, settings.concurrency, b).mergesPerHour);
  }
  if (workload.areas) {
    const lanes = workload.areas.count;
    result.areas = lanes;
    result.laneBoundMergesPerHour = round(
      lanes * linearSpeculationBound(p, T, Math.max(1, Math.floor(settings.concurrency / lanes))).mergesPerHour,
    );
  }
  return result;
};
