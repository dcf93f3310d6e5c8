import { DEFAULT_SETTINGS, plan, type Action, type HostFacts, type QueueEvent, type QueueState } from '@railyard/domain';
import { QueueDriver } from '@railyard/queue-driver';
import { buildResult, type SimResult } from './result';
import { EventQueue } from './event-queue';
import { InvariantViolation } from './invariants';
import { generatePr, type SimPr } from './pr-model';
import { Prng } from './prng';
import { SimCi } from './sim-ci';
import { SimHost } from './sim-host';
import { defaultMaxWaiting, type Workload } from './workload';
import { World } from './world';

/** The planner the simulator drives: the real `plan` by default, a stand-in in tests. */
export type Planner = (s: QueueState, now: string, facts: HostFacts) => Action[];

/** More rounds than this at one instant means the planner keeps acting without converging. */
const MAX_ROUNDS_PER_INSTANT = 5_000;
const quiet = { info: () => undefined, warn: () => undefined };

type SimEvent = { kind: 'arrival' } | { kind: 'ciAnswer'; testRunId: string } | { kind: 'tick' } | { kind: 'wake' };

export interface SimulateOptions {
  /** The planner under test; the real `plan` unless a test plants a broken one. */
  planner?: Planner;
  /** Sees every event the queue records, in order; their `at` is simulated time. */
  onEvent?: (event: QueueEvent) => void;
}

/**
 * Runs one workload to the end: PRs arrive (Poisson), the engine's own QueueDriver plans with the real
 * planner and acts on the modelled host and CI, the modelled CI answers after its drawn duration, and
 * the clock jumps from one event to the next. Every recorded event is checked against the model; a
 * broken invariant rejects with InvariantViolation.
 */
export const simulate = async (workload: Workload, opts: SimulateOptions = {}): Promise<SimResult> => {
  const w = new World(workload);
  w.observer = opts.onEvent;
  const agenda = new EventQueue<SimEvent>();
  const minute = (): number => w.now / 60_000;
  const driver = new QueueDriver({
    log: w.log,
    facts: w.factsSource,
    host: new SimHost(w.git, w.prs, minute),
    ci: new SimCi(w, w.git, w.ci, (testRunId, at) => agenda.push(at, { kind: 'ciAnswer', testRunId })),
    logger: quiet,
    now: () => new Date(w.nowIso()),
    newRunId: () => w.newId('run'),
    plan: opts.planner ?? plan,
    maxRounds: MAX_ROUNDS_PER_INSTANT,
  });
  /** One pass of the driver at the current instant, to the end. */
  const drive = async (): Promise<void> => {
    if ((await driver.pass()) === 'more')
      throw new InvariantViolation('LIVELOCK', `the planner still acts after ${MAX_ROUNDS_PER_INSTANT} rounds at one instant`, minute());
  };
  const arrivals = new Prng(workload.seed, 'arrivals');
  const natures = new Prng(workload.seed, 'prs');
  const settings = { ...DEFAULT_SETTINGS, ...workload.queue };
  const maxWaiting = workload.maxWaiting ?? defaultMaxWaiting(workload);
  const tickMs = workload.tickMinutes * 60_000;
  const limitMs = workload.maxHours * 3_600_000;
  const stallMs = (2 * settings.testingTimeoutMinutes + 2 * settings.batchingMaxWaitTimeMinutes + 60) * 60_000;
  const meanGapMs = 3_600_000 / workload.arrivalsPerHour;
  // At start, every arrival lands at the same instant, so the first plan sees them all.
  const nextGapMs = (): number => (workload.arrivals === 'at-start' ? 0 : arrivals.exponential(meanGapMs));

  w.createQueue();
  let generated = 0;
  let lastSubmission = 0;
  let firstSubmission: number | undefined;
  const held: SimPr[] = [];
  agenda.push(nextGapMs(), { kind: 'arrival' });
  agenda.push(tickMs, { kind: 'tick' });

  const releaseHeld = (): boolean => {
    let released = false;
    while (held.length > 0 && w.waiting() < maxWaiting) {
      w.submit(held.shift() as SimPr);
      lastSubmission = w.now;
      firstSubmission ??= w.now;
      released = true;
    }
    return released;
  };

  const arrive = (): void => {
    const pr = generatePr(workload, ++generated, natures, w.now);
    w.prs.set(pr.number, pr);
    held.push(pr);
    if (generated < workload.prs) agenda.push(w.now + nextGapMs(), { kind: 'arrival' });
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
      else if (ev.kind === 'tick') ticked = true;
    }
    releaseHeld();
    do await drive();
    while (releaseHeld());
    // As the engine's loop does: a start held for a verdict due within moments goes ahead when its window closes.
    const wakeInMs = driver.wakeInMs;
    if (wakeInMs !== undefined) agenda.push(w.now + Math.max(1, wakeInMs), { kind: 'wake' });
    w.checker.atQuiescence(w.state, w, w.mergedCount);
    w.metrics.sampleWaiting(w.now, w.waiting());

    if (generated === workload.prs && held.length === 0 && w.active.size === 0) break;
    if (ticked) {
      if (w.active.size > 0 && w.now - w.lastEventAt > stallMs)
        throw new InvariantViolation(
          'STALLED',
          `${w.active.size} PR(s) queued and nothing recorded for ${((w.now - w.lastEventAt) / 60_000).toFixed(0)} minutes`,
          w.now / 60_000,
        );
      // Runs started and dropped over and over record events, yet no PR ever leaves: that is stuck too.
      const sinceExit = w.now - Math.max(w.lastExitAt, firstSubmission ?? w.now);
      if (w.active.size > 0 && sinceExit > stallMs)
        throw new InvariantViolation(
          'STALLED',
          `${w.active.size} PR(s) queued and none merged or failed for ${(sinceExit / 60_000).toFixed(0)} minutes`,
          w.now / 60_000,
        );
      agenda.push(w.now + tickMs, { kind: 'tick' });
    }
  }
  w.checker.atEnd(w.state, w, generated, stoppedAtLimit);

  return buildResult(workload, w, {
    from: workload.warmupMinutes * 60_000,
    to: lastSubmission,
    generated,
    plannerRounds: driver.stats.rounds,
  });
};
