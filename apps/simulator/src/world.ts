import { createHash } from 'node:crypto';
import {
  decide,
  decideEngine,
  entryOf,
  evolve,
  initialQueueState,
  isTerminal,
  OverlapIndex,
  directMergeCandidate,
  type DecideContext,
  type HostFacts,
  type PullFacts,
  type QueueCommand,
  type QueueEvent,
  type QueueMode,
  type PrState,
  type QueueState,
  type RepoRef,
  type ReportedStatus,
  type RunTestResults,
  type TargetsRef,
} from '@railyard/domain';
import type { FactsSource, QueueLog } from '@railyard/queue-driver';
import { CiModel, CHECK, type CiRun } from './ci-model';
import { GitModel } from './git-model';
import { SIM_BRANCH } from './sim-host';
import { InvariantChecker, type WorldView } from './invariants';
import { Metrics } from './metrics';
import { targetNames, type SimPr } from './pr-model';
import { Prng } from './prng';
import type { Workload } from './workload';

export const SIM_REPO: RepoRef = { host: 'sim.local', owner: 'railyard', name: 'simulated' };
export { SIM_BRANCH };
/** Simulated time 0. Any fixed instant works: the domain only ever sees ISO strings. */
export const EPOCH_MS = Date.UTC(2025, 0, 6, 0, 0, 0);

const ALL_DIGEST = createHash('sha256').update('ALL').digest('hex');

/** A target list as the API stores it: sorted, de-duplicated, one name a line, addressed by SHA-256. */
export const targetsRefOf = (targets: string[] | 'ALL'): TargetsRef => {
  if (targets === 'ALL') return { digest: ALL_DIGEST, count: 0, all: true };
  const unique = [...new Set(targets)].sort();
  return { digest: createHash('sha256').update(unique.join('\n'), 'utf8').digest('hex'), count: unique.length, all: false };
};

/**
 * The simulated world around one queue: its event-sourced state (the real `decide`, `decideEngine`
 * and `evolve`), the modelled host and CI, the invariant checker and the measurements. Every event
 * goes through `apply`, which shows it to the checker and the metrics before folding it in.
 */
export class World implements WorldView {
  state: QueueState = initialQueueState();
  now = 0;
  readonly prs = new Map<number, SimPr>();
  readonly git: GitModel;
  readonly ci: CiModel;
  readonly metrics: Metrics;
  readonly checker: InvariantChecker;
  /**
   * Parallel mode's overlap facts, kept as the engine's TargetOverlapsCache keeps them: the lists of
   * the PRs still queued, indexed by digest, each dropped when no queued PR uses it any more.
   */
  readonly overlaps = new OverlapIndex();
  private readonly listUsers = new Map<string, number>();
  private readonly digestOf = new Map<number, string>();
  readonly active = new Set<number>();
  mergedCount = 0;
  /** Each PR's end as it stands: the state keeps only recently ended PRs (D250), the result counts all. */
  readonly ended = new Map<number, PrState>();
  lastEventAt = 0;
  /** When a PR last left the queue (merged, failed or cancelled). */
  lastExitAt = 0;
  private ids = 0;
  /** Sees every event the queue records, in order (a run's timeline, `bench calibrate`). */
  observer: ((event: QueueEvent) => void) | undefined;

  constructor(readonly workload: Workload) {
    this.git = new GitModel(this.prs);
    this.ci = new CiModel(
      workload,
      this.prs,
      new Prng(workload.seed, 'ci'),
      workload.testResults ? new Prng(workload.seed, 'tests') : undefined,
      () => this.git.mergeLog,
    );
    this.metrics = new Metrics(this.prs);
    this.checker = new InvariantChecker({
      missesPossible: workload.missRate > 0,
      flakesPossible: workload.flakeRate > 0,
      directMergeAllowed: workload.queue.directMergeMode === 'always',
    });
    this.heads = new Prng(workload.seed, 'heads');
  }

  /** Draws of the PRs' own checks, a stream of their own so workloads without direct merge draw as before. */
  private readonly heads: Prng;

  /** The queue's stream as the engine's QueueDriver writes it: the real decideEngine, every event shown to the checker. */
  readonly log: QueueLog = {
    read: async () => this.state,
    execute: async (command) => {
      const events = decideEngine(this.state, command, this.context());
      this.apply(events);
      return events;
    },
  };

  /** What the driver is shown: the facts an engine would read now (below), and the target fresh from the model. */
  readonly factsSource: FactsSource = {
    read: async () => this.facts(),
    target: async () => this.git.target(),
    forgetPull: () => undefined,
    forgetTarget: () => undefined,
  };

  get mode(): QueueMode {
    return this.state.settings.mode;
  }

  get mergeLog(): readonly number[] {
    return this.git.mergeLog;
  }

  holds(prNumber: number): boolean {
    return this.git.holds(prNumber);
  }

  ciRun(testRunId: string): CiRun | undefined {
    return this.ci.get(testRunId);
  }

  pr(prNumber: number): SimPr | undefined {
    return this.prs.get(prNumber);
  }

  nowIso(): string {
    return new Date(EPOCH_MS + this.now).toISOString();
  }

  newId(prefix: string): string {
    return `${prefix}-${++this.ids}`;
  }

  private context(): DecideContext {
    return { now: this.nowIso(), newId: () => this.newId('entry') };
  }

  apply(events: readonly QueueEvent[]): void {
    for (const event of events) {
      this.checker.onEvent(this.state, event, this);
      this.metrics.onEvent(event, this.now);
      this.state = evolve(this.state, event);
      this.lastEventAt = this.now;
      this.track(event);
      this.observer?.(event);
    }
  }

  private track(event: QueueEvent): void {
    if (event.type === 'PrMerged') this.mergedCount++;
    if (event.type === 'PrSubmitted') {
      this.active.add(event.data.prNumber);
      this.ended.delete(event.data.prNumber);
    }
    const n = 'prNumber' in event.data ? event.data.prNumber : undefined;
    if (n !== undefined && this.active.has(n)) {
      const e = entryOf(this.state, n);
      if (e && isTerminal(e.state)) {
        this.ended.set(n, e.state);
        this.leave(n);
      }
    }
    if (
      event.type === 'TestRunSucceeded' ||
      event.type === 'TestRunFailed' ||
      event.type === 'TestRunTimedOut' ||
      event.type === 'TestRunCancelled'
    )
      this.ci.end(event.data.testRunId, this.now);
  }

  private leave(prNumber: number): void {
    this.active.delete(prNumber);
    this.lastExitAt = this.now;
    const digest = this.digestOf.get(prNumber);
    if (digest === undefined) return;
    this.digestOf.delete(prNumber);
    const users = (this.listUsers.get(digest) ?? 1) - 1;
    if (users > 0) this.listUsers.set(digest, users);
    else {
      this.listUsers.delete(digest);
      this.overlaps.remove(digest);
    }
  }

  /** An API command (create, submit, targets): the real decide; a refusal is a workload error. */
  command(command: QueueCommand): void {
    this.apply(decide(this.state, command, this.context()));
  }

  createQueue(): void {
    this.command({
      type: 'CreateQueue',
      queueId: `sim-${this.workload.name}`,
      repo: SIM_REPO,
      branch: SIM_BRANCH,
      settings: this.workload.queue,
      requiredStatuses: [CHECK],
    });
  }

  submit(pr: SimPr): void {
    pr.submittedAt = this.now;
    if (this.workload.queue.directMergeMode === 'always') {
      // The author's CI ran on the head, made on the target as it is now: it fails a bad PR unless the test misses it, and may flake.
      const missed = this.heads.chance(this.workload.missRate);
      const flaked = this.heads.chance(this.workload.flakeRate);
      pr.headChecks = (pr.bad && !missed) || flaked ? 'failure' : 'success';
      pr.baseVersion = this.git.version;
    }
    if (this.state.settings.mode === 'parallel' || this.workload.areas) {
      const list = targetNames(pr, this.workload.areas?.targetsPerArea ?? 1);
      const ref = targetsRefOf(list);
      if (list !== 'ALL' && list.length > 0) {
        this.overlaps.add(ref.digest, list);
        this.listUsers.set(ref.digest, (this.listUsers.get(ref.digest) ?? 0) + 1);
        this.digestOf.set(pr.number, ref.digest);
      }
      this.command({ type: 'SetImpactedTargets', prNumber: pr.number, headSha: pr.headSha, targets: ref });
    }
    this.command({
      type: 'SubmitPullRequest',
      pr: {
        number: pr.number,
        title: `PR ${pr.number}`,
        author: 'sim',
        headSha: pr.headSha,
        baseBranch: SIM_BRANCH,
        state: 'open',
        mergeability: 'mergeable',
      },
      ...(pr.priority ? { priority: pr.priority } : {}),
    });
  }

  /** PRs admitted and not started yet: the backlog that keeps the queue saturated. */
  waiting(): number {
    let n = 0;
    for (const prNumber of this.active) {
      const e = this.state.entries.get(prNumber);
      if (e && e.state === 'pending' && e.flightSeq === undefined) n++;
    }
    return n;
  }

  /** What the engine's FactsReader would read from the host and CI now. */
  facts(): HostFacts {
    const pulls = new Map<number, PullFacts>();
    for (const prNumber of this.active) {
      const e = this.state.entries.get(prNumber);
      if (!e) continue;
      pulls.set(prNumber, {
        headSha: e.headSha,
        baseBranch: SIM_BRANCH,
        state: 'open',
        ...(e.state === 'not_ready' ? { mergeability: 'mergeable' as const } : {}),
      });
    }
    const statuses = new Map<string, ReportedStatus[]>();
    for (const run of this.state.runs.values())
      if (run.status === 'testing') statuses.set(run.testBranchSha, this.ci.statuses(run.testBranchSha));
    const testBranches = [...this.git.testBranches].map(([branch, testRunId]) => ({ branch, testRunId }));
    const facts: HostFacts = { target: this.git.target(), pulls, statuses, testBranches };
    if (this.workload.testResults) {
      // What the engine's test-health facts hold: the failing tests uploaded for the commits of the queue's runs.
      const testResults = new Map<string, RunTestResults>();
      for (const run of this.state.runs.values()) {
        const failing = this.ci.results(run.testBranchSha);
        if (failing) testResults.set(run.testBranchSha, { failing });
      }
      facts.testResults = testResults;
    }
    if (this.state.settings.mode === 'parallel') facts.overlaps = this.overlaps;
    const candidate = directMergeCandidate(this.state);
    const pr = candidate && this.prs.get(candidate.prNumber);
    if (candidate && pr)
      facts.directMerge = {
        prNumber: pr.number,
        headSha: pr.headSha,
        upToDate: pr.baseVersion === this.git.version,
        headTree: this.git.treeWith(pr.number),
        requiredStatuses: [...this.state.requiredStatuses],
        headStatuses: pr.headChecks ? [{ context: CHECK, state: pr.headChecks }] : [],
      };
    return facts;
  }
}
