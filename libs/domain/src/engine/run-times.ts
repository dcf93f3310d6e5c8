import type { QueueState, TestRun } from '../state';
import { movingAverage } from './batch-size';

/**
 * How long the queue's runs take, from the engine starting one to its verdict: a moving mean and a
 * moving mean absolute deviation over about the last ten passing first runs (re-runs and bisection
 * halves aside: they repeat or split a run already counted). Folded from the queue's own events.
 */
export interface RunTimes {
  meanMs: number;
  deviationMs: number;
  count: number;
}

/** Weight of one run in the estimates: about the last ten count, so a slower CI is followed within a few rounds. */
export const RUN_TIME_WEIGHT = 0.2;

/** Runs seen before the times may be trusted at all. */
export const RUN_TIMES_MIN_COUNT = 3;

/**
 * CI counts as steady while runs deviate from the mean by at most this share of it: a fixed test
 * suite on dedicated runners, where the runs of one round report within moments of each other.
 */
export const STEADY_DEVIATION_SHARE = 0.05;

/**
 * The window a run is due in: three deviations either side of the mean, within these shares of it,
 * and as much again before it, since a start decided now is built and recorded a moment later.
 */
export const DUE_WINDOW_MIN_SHARE = 0.02;
export const DUE_WINDOW_MAX_SHARE = 0.05;

/** Whether the run's time says how long the queue's runs take (a passing first run). */
export const countsAsRunTime = (run: TestRun | undefined): run is TestRun => run !== undefined && run.retry === undefined && !run.bisection;

/** The estimates after one more run took `ms`. */
export const foldRunTimes = (before: RunTimes | undefined, ms: number): RunTimes => {
  if (before === undefined) return { meanMs: ms, deviationMs: 0, count: 1 };
  const deviation = Math.abs(ms - before.meanMs);
  // The first deviation seen is taken whole: a mean of one run says nothing of the spread.
  const deviationMs = before.count === 1 ? deviation : movingAverage(before.deviationMs, deviation, RUN_TIME_WEIGHT);
  return { meanMs: movingAverage(before.meanMs, ms, RUN_TIME_WEIGHT), deviationMs, count: before.count + 1 };
};

/** Half the width of the window a run is due in, or undefined while CI is not steady enough to say. */
export const dueWindowMs = (t: RunTimes | undefined): number | undefined => {
  if (t === undefined || t.count < RUN_TIMES_MIN_COUNT || t.deviationMs > STEADY_DEVIATION_SHARE * t.meanMs) return undefined;
  return Math.min(DUE_WINDOW_MAX_SHARE * t.meanMs, Math.max(DUE_WINDOW_MIN_SHARE * t.meanMs, 3 * t.deviationMs));
};

/**
 * Runs testing now whose verdict is due within moments (their age inside the due window): the PRs
 * they test, and when the last of those windows closes. A start that would stack one of these PRs
 * waits for its verdict (phases/starts.ts): in a steady CI the runs of a round report together, and
 * a run started between two of their verdicts stacks a PR that may fail a few milliseconds later,
 * which costs the run, and for a failure of unknown kind makes the new run a witness of it (D340).
 */
export const dueSoon = (s: QueueState, nowMs: number): { prs: Set<number>; untilMs: number } | undefined => {
  const w = dueWindowMs(s.runTimes);
  if (w === undefined || s.runTimes === undefined) return undefined;
  const prs = new Set<number>();
  let untilMs = -Infinity;
  for (const r of s.runs.values()) {
    if (r.status !== 'testing' || r.bisection) continue;
    const due = Date.parse(r.createdAt) + s.runTimes.meanMs;
    if (nowMs < due - 2 * w || nowMs > due + w) continue;
    for (const n of r.prNumbers) prs.add(n);
    untilMs = Math.max(untilMs, due + w);
  }
  return prs.size > 0 ? { prs, untilMs } : undefined;
};
