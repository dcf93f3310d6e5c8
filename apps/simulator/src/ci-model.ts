import type { FailingTest, ReportedStatus } from '@railyard/domain';
import { TreeFlakes } from './flake-draws';
import type { Prng } from './prng';
import type { SimPr } from './pr-model';
import type { Workload } from './workload';

export const CHECK = 'tests';

/** One run as the modelled CI sees it: what it built, what it will answer and when. */
export interface CiRun {
  testRunId: string;
  testBranchSha: string;
  /** Everything stacked on the base, in merge order: the dependents, then the tested PRs. */
  stack: readonly number[];
  tested: readonly number[];
  bisection: boolean;
  /** Length of the target's merge log when the branch was built: the run's base. */
  baseVersion: number;
  startedAt: number;
  endsAt: number;
  outcome: 'success' | 'failure';
  /** Failed although every PR in it is good. */
  flaked: boolean;
  /** Passed although it holds a bad PR. */
  missed: boolean;
  /** With per-test results: the tests it reports failing, and their health as the test-health service sees it. */
  failing: FailingTest[];
  /** CI has posted its result. */
  reported: boolean;
  /** The queue ended the run (result recorded or cancelled); CI stops charging for it. */
  ended: boolean;
  /** When CI stopped working on it: its end, or the cancellation before it. */
  stoppedAt?: number;
}

/**
 * The modelled CI: a run's duration and verdict are drawn when it is triggered. A run fails when its
 * tree holds a bad PR (unless the test misses it), and a good run fails spuriously at the flake rate.
 * Whether a PR already merged is bad does not matter: the model assumes a broken target is repaired
 * out of band, and counts such merges instead.
 */
export class CiModel {
  private readonly runs = new Map<string, CiRun>();
  private readonly bySha = new Map<string, CiRun>();
  /** Failing tests uploaded per commit, every attempt's (a re-run tests the same commit). */
  private readonly resultsBySha = new Map<string, FailingTest[]>();
  private readonly treeFlakes: TreeFlakes | undefined;

  constructor(
    private readonly w: Workload,
    private readonly prs: ReadonlyMap<number, SimPr>,
    private readonly rng: Prng,
    /** Which test a flake hits: a stream of its own, so workloads without test results draw as before. */
    private readonly tests?: Prng,
    /** The PRs on the target in merge order: a run's tree holds the first `baseVersion` of them (per-tree draws). */
    private readonly mergeLog: () => readonly number[] = () => [],
  ) {
    this.treeFlakes = w.flakeDraws === 'per-tree' ? new TreeFlakes(w.seed, w.flakeRate) : undefined;
  }

  /** The tests a failing run reports: a healthy test per bad PR it holds, and the test a flake hit. */
  private failingTests(stack: readonly number[], flaked: boolean, missed: boolean): FailingTest[] {
    const t = this.w.testResults;
    if (!t || !this.tests) return [];
    const out: FailingTest[] = [];
    if (!missed)
      for (const n of stack) if (this.prs.get(n)?.bad) out.push({ context: CHECK, name: `breaks-by-pr-${n}`, health: 'healthy' });
    if (flaked) {
      const u = this.tests.next();
      const which = this.tests.int(20);
      const health = u < t.quarantined ? 'quarantined' : u < t.quarantined + t.knownFlaky ? 'flaky' : 'healthy';
      out.push({ context: CHECK, name: `${health}-test-${which}`, health });
    }
    return out;
  }

  duration(): number {
    const { durationMinutes, distribution, sigma } = this.w.ci;
    const minutes = distribution === 'fixed' ? durationMinutes : this.rng.lognormal(durationMinutes, sigma);
    return minutes * 60_000;
  }

  trigger(r: Omit<CiRun, 'endsAt' | 'outcome' | 'flaked' | 'missed' | 'failing' | 'reported' | 'ended' | 'stoppedAt'>): CiRun {
    const holdsBad = r.stack.some((n) => this.prs.get(n)?.bad === true);
    // The stream is drawn either way, so the runs' misses and durations do not move with the draw.
    const streamDraw = this.rng.chance(this.w.flakeRate);
    const flakeDraw = this.treeFlakes ? this.treeFlakes.draw([...this.mergeLog().slice(0, r.baseVersion), ...r.stack]) : streamDraw;
    const missDraw = this.rng.chance(this.w.missRate);
    const endsAt = r.startedAt + this.duration();
    const missed = holdsBad && missDraw;
    const flaked = !holdsBad && flakeDraw;
    const run: CiRun = {
      ...r,
      endsAt,
      outcome: (holdsBad && !missed) || flaked ? 'failure' : 'success',
      flaked,
      missed,
      failing: this.failingTests(r.stack, flaked, missed),
      reported: false,
      ended: false,
    };
    this.runs.set(run.testRunId, run);
    this.bySha.set(run.testBranchSha, run);
    return run;
  }

  get(testRunId: string): CiRun | undefined {
    return this.runs.get(testRunId);
  }

  /** CI posts the verdict; false when the queue had already ended the run. */
  finish(testRunId: string): boolean {
    const run = this.runs.get(testRunId);
    if (!run || run.ended) return false;
    run.reported = true;
    if (run.failing.length > 0)
      this.resultsBySha.set(run.testBranchSha, [...(this.resultsBySha.get(run.testBranchSha) ?? []), ...run.failing]);
    return true;
  }

  /** The failing tests uploaded for a commit so far; undefined when none were (the planner then knows nothing). */
  results(testBranchSha: string): readonly FailingTest[] | undefined {
    return this.resultsBySha.get(testBranchSha);
  }

  /** A failure whose failing tests are all quarantined: the queue passes it (docs/engine.md, Flakes). */
  quarantinedOnly(run: CiRun): boolean {
    return run.outcome === 'failure' && run.failing.length > 0 && run.failing.every((t) => t.health === 'quarantined');
  }

  /** The queue recorded the run's end (outcome or cancellation): CI time stops counting. */
  end(testRunId: string, now: number): void {
    const run = this.runs.get(testRunId);
    if (!run || run.ended) return;
    run.ended = true;
    run.stoppedAt = Math.min(now, run.endsAt);
  }

  statuses(testBranchSha: string): ReportedStatus[] {
    const run = this.bySha.get(testBranchSha);
    if (!run || !run.reported) return [];
    return [{ context: CHECK, state: run.outcome, url: `https://ci.sim/${run.testRunId}` }];
  }

  *all(): Iterable<CiRun> {
    yield* this.runs.values();
  }
}
