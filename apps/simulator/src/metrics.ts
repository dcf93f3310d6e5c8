import type { QueueEvent } from '@railyard/domain';
import type { CiModel } from './ci-model';
import type { SimPr } from './pr-model';

const percentile = (sorted: readonly number[], q: number): number | null => {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null;
};

/**
 * What the simulator measures, from the events the queue records. Throughput and cost are counted
 * inside the measurement window only: after the warm-up, while arrivals still feed the backlog.
 */
export class Metrics {
  merges = 0;
  badMerges = 0;
  badMergesOptimistic = 0;
  directMerges = 0;
  culpritEjections = 0;
  innocentEjections = 0;
  conflictEjections = 0;
  timeouts = 0;
  runsStarted = 0;
  bisectionRuns = 0;
  runsCancelled = 0;
  /** Re-runs of a failed run on the same commit (flakeRetries), and the PRs they cleared (FLAKE_RETRIED). */
  flakeRetries = 0;
  flakeRetriedPasses = 0;
  /** Runs passed although a check failed, because only quarantined tests failed. */
  quarantinedPasses = 0;
  /** Why PRs went back to waiting, and why they failed: what explains the wasted runs. */
  readonly restarts: Record<string, number> = {};
  readonly failures: Record<string, number> = {};
  /** Merge time and time in queue of each merge, for the window. */
  private readonly mergeTimes: number[] = [];
  private readonly queueMinutes: { at: number; minutes: number }[] = [];
  private readonly runStarts: { at: number; tested: number; bisection: boolean; retry: boolean }[] = [];
  private readonly optimistic = new Set<number>();
  /** Time-weighted: how long the queue had a PR waiting to start. */
  private lastSample: { at: number; waiting: number } | undefined;
  private readonly waitingSpans: { from: number; to: number; waiting: number }[] = [];

  constructor(private readonly prs: ReadonlyMap<number, SimPr>) {}

  onEvent(event: QueueEvent, now: number): void {
    switch (event.type) {
      case 'TestRunStarted':
        this.runsStarted++;
        this.runStarts.push({ at: now, tested: event.data.prNumbers.length, bisection: event.data.bisection, retry: !!event.data.retry });
        if (event.data.bisection) this.bisectionRuns++;
        if (event.data.retry) this.flakeRetries++;
        return;
      case 'TestRunSucceeded':
        if (event.data.quarantined) this.quarantinedPasses++;
        return;
      case 'TestRunCancelled':
        this.runsCancelled++;
        return;
      case 'TestsRestarted':
        this.restarts[event.data.reason] = (this.restarts[event.data.reason] ?? 0) + 1;
        return;
      case 'PrTestsPassed':
        if (event.data.reason === 'SUCCESSOR_TEST_RUN_PASSED') this.optimistic.add(event.data.prNumber);
        if (event.data.reason === 'FLAKE_RETRIED') this.flakeRetriedPasses++;
        return;
      case 'PrMerged': {
        const pr = this.prs.get(event.data.prNumber);
        this.merges++;
        this.mergeTimes.push(now);
        if (event.data.reason === 'MERGE_GRAPH_DIRECT_MERGE') this.directMerges++;
        if (pr?.bad) {
          this.badMerges++;
          if (this.optimistic.has(pr.number)) this.badMergesOptimistic++;
        }
        if (pr?.submittedAt !== undefined) this.queueMinutes.push({ at: now, minutes: (now - pr.submittedAt) / 60_000 });
        return;
      }
      case 'PrFailed': {
        const pr = this.prs.get(event.data.prNumber);
        const reason = event.data.reason;
        this.failures[reason] = (this.failures[reason] ?? 0) + 1;
        if (reason === 'START_TEST_RUN_MERGE_CONFLICT' || reason === 'GITHUB_API_MERGE_PR_FAILED') this.conflictEjections++;
        else if (reason === 'TEST_RUN_TIMEOUT') this.timeouts++;
        else if (pr?.bad) this.culpritEjections++;
        else this.innocentEjections++;
        return;
      }
      default:
        return;
    }
  }

  /** The number of PRs waiting to start, sampled whenever the engine has settled. */
  sampleWaiting(now: number, waiting: number): void {
    if (this.lastSample && now > this.lastSample.at)
      this.waitingSpans.push({ from: this.lastSample.at, to: now, waiting: this.lastSample.waiting });
    this.lastSample = { at: now, waiting };
  }

  window(from: number, to: number, ci: CiModel): WindowMeasures {
    const hours = Math.max(0, to - from) / 3_600_000;
    const inWindow = (t: number): boolean => t >= from && t <= to;
    const merges = this.mergeTimes.filter(inWindow).length;
    const starts = this.runStarts.filter((r) => inWindow(r.at));
    const runs = starts.length;
    const main = starts.filter((r) => !r.bisection);
    const retries = starts.filter((r) => r.retry).length;
    let ciMinutes = 0;
    for (const run of ci.all()) {
      if (!inWindow(run.startedAt)) continue;
      // A run cancelled during the engine's overhead never reached CI: it cost nothing.
      ciMinutes += Math.max(0, (run.stoppedAt ?? Math.min(to, run.endsAt)) - run.startedAt) / 60_000;
    }
    const minutes = this.queueMinutes
      .filter((q) => inWindow(q.at))
      .map((q) => q.minutes)
      .sort((a, b) => a - b);
    let busy = 0;
    let waitingArea = 0;
    for (const span of this.waitingSpans) {
      const a = Math.max(span.from, from);
      const b = Math.min(span.to, to);
      if (b <= a) continue;
      if (span.waiting > 0) busy += b - a;
      waitingArea += span.waiting * (b - a);
    }
    const length = Math.max(1, to - from);
    return {
      hours,
      merges,
      mergesPerHour: hours > 0 ? merges / hours : 0,
      ciRunsPerMerge: merges > 0 ? runs / merges : null,
      bisectionRunsPerMerge: merges > 0 ? (runs - main.length) / merges : null,
      flakeRetriesPerMerge: merges > 0 ? retries / merges : null,
      meanPrsPerRun: main.length > 0 ? main.reduce((a, r) => a + r.tested, 0) / main.length : null,
      ciMinutesPerMerge: merges > 0 ? ciMinutes / merges : null,
      p50TimeInQueueMin: percentile(minutes, 0.5),
      p95TimeInQueueMin: percentile(minutes, 0.95),
      saturation: busy / length,
      meanWaiting: waitingArea / length,
    };
  }
}

export interface WindowMeasures {
  hours: number;
  merges: number;
  mergesPerHour: number;
  ciRunsPerMerge: number | null;
  bisectionRunsPerMerge: number | null;
  /** Re-runs on the same commit (flakeRetries) per merge; counted in ciRunsPerMerge too. */
  flakeRetriesPerMerge: number | null;
  /** PRs tested per run, bisection runs left out: the batch size actually reached. */
  meanPrsPerRun: number | null;
  ciMinutesPerMerge: number | null;
  p50TimeInQueueMin: number | null;
  p95TimeInQueueMin: number | null;
  /** Share of the window with at least one PR waiting to start: 1 means throughput, not arrivals, was measured. */
  saturation: number;
  meanWaiting: number;
}
