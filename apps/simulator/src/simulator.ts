import { DEFAULT_SETTINGS, plan } from '@railyard/domain';
import { batchedLinearBound, dorfmanRunsPerChange, effectiveFailureRate, linearSpeculationBound } from './bound';
import { EventQueue } from './event-queue';
import { InvariantViolation } from './invariants';
import { generatePr, type SimPr } from './pr-model';
import { Prng } from './prng';
import { SimExecutor, type Planner } from './sim-executor';
import { defaultMaxWaiting, type Workload } from './workload';
import { World } from './world';

type SimEvent = { kind: 'arrival' } | { kind: 'ciAnswer'; testRunId: string } | { kind: 'tick' };

export interface SimulateOptions {
  /** The planner under test; the real `plan` unless a test plants a broken one. */
  planner?: Planner;
}

/** One workload's result: the JSON line `npm run simulate` prints. */
export interface SimResult {
  workload: string;
  mode: string;
  seed: number;
  prs: number;
  mergesPerHour: number;
  boundMergesPerHour: number;
  fractionOfBound: number;
  ciRunsPerMerge: number | null;
  boundCiRunsPerMerge: number;
  p50TimeInQueueMin: number | null;
  p95TimeInQueueMin: number | null;
  innocentEjections: number;
  badMerges: number;
  flakes: number;
  [extra: string]: unknown;
}

/** The bound's T: the mean CI duration (a lognormal's mean is its median times exp(sigma²/2)). */
export const meanCiMinutes = (w: Workload): number =>
  w.ci.distribution === 'fixed' ? w.ci.durationMinutes : w.ci.durationMinutes * Math.exp((w.ci.sigma * w.ci.sigma) / 2);

const round = (n: number | null, digits = 2): number | null => (n === null ? null : Math.round(n * 10 ** digits) / 10 ** digits);

/**
 * Runs one workload to the end: PRs arrive (Poisson), the real planner plans, the modelled CI answers
 * after its drawn duration, and the clock jumps from one event to the next. Every recorded event is
 * checked against the model; a broken invariant throws InvariantViolation.
 */
export const simulate = (workload: Workload, opts: SimulateOptions = {}): SimResult => {
  const w = new World(workload);
  const agenda = new EventQueue<SimEvent>();
  const exec = new SimExecutor(w, opts.planner ?? plan, (testRunId, at) => agenda.push(at, { kind: 'ciAnswer', testRunId }));
  const arrivals = new Prng(workload.seed, 'arrivals');
  const natures = new Prng(workload.seed, 'prs');
  const settings = { ...DEFAULT_SETTINGS, ...workload.queue };
  const maxWaiting = workload.maxWaiting ?? defaultMaxWaiting(workload);
  const tickMs = workload.tickMinutes * 60_000;
  const limitMs = workload.maxHours * 3_600_000;
  const stallMs = (2 * settings.testingTimeoutMinutes + 2 * settings.batchingMaxWaitTimeMinutes + 60) * 60_000;
  const meanGapMs = 3_600_000 / workload.arrivalsPerHour;

  w.createQueue();
  let generated = 0;
  let lastSubmission = 0;
  const held: SimPr[] = [];
  agenda.push(arrivals.exponential(meanGapMs), { kind: 'arrival' });
  agenda.push(tickMs, { kind: 'tick' });

  const releaseHeld = (): boolean => {
    let released = false;
    while (held.length > 0 && w.waiting() < maxWaiting) {
      w.submit(held.shift() as SimPr);
      lastSubmission = w.now;
      released = true;
    }
    return released;
  };

  const arrive = (): void => {
    const pr = generatePr(workload, ++generated, natures, w.now);
    w.prs.set(pr.number, pr);
    held.push(pr);
    if (generated < workload.prs) agenda.push(w.now + arrivals.exponential(meanGapMs), { kind: 'arrival' });
  };

  let stoppedAtLimit = false;
  for (;;) {
    const first = agenda.peekTime();
    if (first === undefined) break;
    if (first > limitMs) {
      stoppedAtLimit = true;
      break;
    }
    w.now = first;
    // Everything due at this instant lands before planning: the engine sees one consistent picture.
    let ticked = false;
    while (agenda.peekTime() === w.now) {
      const ev = (agenda.pop() as { item: SimEvent }).item;
      if (ev.kind === 'arrival') arrive();
      else if (ev.kind === 'ciAnswer') w.ci.finish(ev.testRunId);
      else ticked = true;
    }
    releaseHeld();
    do exec.drive();
    while (releaseHeld());
    w.checker.atQuiescence(w.state, w, w.mergedCount);
    w.metrics.sampleWaiting(w.now, w.waiting());

    if (generated === workload.prs && held.length === 0 && w.active.size === 0) break;
    if (ticked) {
      if (w.active.size > 0 && w.now - w.lastEventAt > stallMs)
        throw new InvariantViolation('STALLED', `${w.active.size} PR(s) queued and nothing recorded for ${((w.now - w.lastEventAt) / 60_000).toFixed(0)} minutes`, w.now / 60_000);
      agenda.push(w.now + tickMs, { kind: 'tick' });
    }
  }
  w.checker.atEnd(w.state, w, generated, stoppedAtLimit);

  const from = workload.warmupMinutes * 60_000;
  const to = lastSubmission;
  const measured = w.metrics.window(from, to, w.ci);
  const p = effectiveFailureRate({ failureRate: workload.failureRate, flakeRate: workload.flakeRate, conflictRate: workload.conflicts.withBase + workload.conflicts.withEarlier });
  const bound = linearSpeculationBound(p, meanCiMinutes(workload), settings.concurrency);
  let flakes = 0;
  for (const run of w.ci.all()) if (run.flaked && run.reported && run.startedAt >= from && run.startedAt <= to) flakes++;
  const m = w.metrics;
  const terminal = [...w.state.entries.values()];
  const count = (state: string): number => terminal.filter((e) => e.state === state).length;

  const result: SimResult = {
    workload: workload.name,
    mode: settings.mode,
    seed: workload.seed,
    prs: generated,
    mergesPerHour: round(measured.mergesPerHour) as number,
    boundMergesPerHour: round(bound.mergesPerHour) as number,
    fractionOfBound: round(measured.mergesPerHour / bound.mergesPerHour, 3) as number,
    ciRunsPerMerge: round(measured.ciRunsPerMerge, 3),
    boundCiRunsPerMerge: round(bound.ciRunsPerMerge, 3) as number,
    p50TimeInQueueMin: round(measured.p50TimeInQueueMin, 1),
    p95TimeInQueueMin: round(measured.p95TimeInQueueMin, 1),
    innocentEjections: m.innocentEjections,
    badMerges: m.badMerges,
    flakes,
    concurrency: settings.concurrency,
    effectiveFailureRate: round(p, 4),
    ciMinutes: round(meanCiMinutes(workload), 1),
    merged: count('merged'),
    failed: count('failed'),
    unfinished: generated - count('merged') - count('failed') - count('cancelled'),
    culpritEjections: m.culpritEjections,
    conflictEjections: m.conflictEjections,
    timeouts: m.timeouts,
    badMergesOptimistic: m.badMergesOptimistic,
    ciMinutesPerMerge: round(measured.ciMinutesPerMerge, 1),
    runsCancelled: m.runsCancelled,
    bisectionRuns: m.bisectionRuns,
    windowHours: round(measured.hours, 1),
    windowMerges: measured.merges,
    saturation: round(measured.saturation, 3),
    meanWaiting: round(measured.meanWaiting, 1),
    simulatedHours: round(w.now / 3_600_000, 1),
    plannerRounds: exec.rounds,
  };
  if (settings.batch) {
    const b = settings.batchingMinSize;
    result.batchSize = b;
    result.dorfmanRunsPerMerge = round(dorfmanRunsPerChange(p, b), 3);
    result.batchedBoundMergesPerHour = round(batchedLinearBound(p, meanCiMinutes(workload), settings.concurrency, b).mergesPerHour);
  }
  if (workload.areas) {
    const lanes = workload.areas.count;
    const perLane = Math.max(1, Math.floor(settings.concurrency / lanes));
    result.areas = lanes;
    result.laneBoundMergesPerHour = round(lanes * linearSpeculationBound(p, meanCiMinutes(workload), perLane).mergesPerHour);
  }
  return result;
};
