import {
  activeEntries,
  DomainError,
  dueSoon,
  gatingConfigCommit,
  plan as realPlan,
  type Action,
  type ConfigNotUsed,
  type EngineCommand,
  type HostFacts,
  type QueueEvent,
  type QueueState,
  type RepoRef,
} from '@railyard/domain';
import pLimit from 'p-limit';
import type { CiPort, RequiredStatusesAnswer } from './ci/port';
import type { BranchHead, CodeHost, TestBranchBuilt } from './host/port';

/** One queue's stream as the engine writes it: the state folded so far, and its commands through decideEngine. */
export interface QueueLog {
  read(): Promise<QueueState>;
  /** The events the command recorded (none when its outcome is already in the log); DomainError when it no longer fits. */
  execute(command: EngineCommand): Promise<readonly QueueEvent[]>;
}

/** What the planner is shown: the host and CI facts of the queue (apps/engine/src/facts.ts; the simulator's world). */
export interface FactsSource {
  read(s: QueueState, opts: { verify: boolean }): Promise<HostFacts>;
  /** The target branch now, read from the host: a merge acts only on a fresh answer. */
  target(s: QueueState): Promise<BranchHead | null>;
  /** Forget what is known of a PR, so the next read asks the host again. */
  forgetPull(s: QueueState, prNumber: number): void;
  /** Forget the target's head: the engine just moved it (or found it moved). */
  forgetTarget(s: QueueState): void;
  /** Forget the statuses of a sha: CI was just asked to run its checks again, so what was read is stale. */
  forgetStatuses?(s: QueueState, sha: string): void;
}

export interface DriverLogger {
  info(message: string, meta?: object): unknown;
  warn(message: string, meta?: object): unknown;
}

export interface DriverDeps {
  log: QueueLog;
  facts: FactsSource;
  host: CodeHost;
  ci: CiPort;
  logger: DriverLogger;
  now: () => Date;
  /** Ids of new test runs (random UUIDs in the engine, a counter in the simulator). */
  newRunId: () => string;
  /** Wraps each action (the engine times them: railyard_engine_action_duration_seconds). */
  observe?: <T>(kind: Action['kind'], run: () => Promise<T>) => Promise<T>;
  /** Rounds of plan → act per pass before the pass yields (and says there is more to do). */
  maxRounds?: number;
  /** Told of every event the driver recorded (the engine counts infrastructure errors and stuck runs). */
  onRecorded?: (s: QueueState, events: readonly QueueEvent[]) => void;
  /** The planner; the domain's `plan` unless a test plants a broken one (the simulator's invariant tests). */
  plan?: (s: QueueState, now: string, facts: HostFacts) => Action[];
  /** Test branches of one round built at once (default 4); each run is still recorded in plan order. */
  startConcurrency?: number;
  /** Told how long after the pass woke up each hop happened (the engine's railyard_engine_hop_seconds). */
  observeHop?: (hop: DriverHop, seconds: number) => void;
}

/**
 * The hops from a wake-up (a CI status, an API event, a tick) to the next check: the planner decided
 * something, a merge moved the target, a test branch was built, a check was started.
 */
export type DriverHop = 'decided' | 'merge_landed' | 'branch_built' | 'check_started';

type Outcome = 'done' | 'replan' | 'nothing';
type StartRun = Extract<Action, { kind: 'startRun' }>;

/** A run prepared on the host before it is recorded: its branch built, its required statuses resolved. */
type Prepared =
  | { ok: false; testRunId: string; built: Extract<TestBranchBuilt, { ok: false }> }
  | {
      ok: true;
      testRunId: string;
      built: Extract<TestBranchBuilt, { ok: true }>;
      configSha: string;
      required: RequiredStatusesAnswer;
      configNotUsed: ConfigNotUsed[];
    };

/** What the driver measured about itself; read by benchmarks, logs and the simulator. */
export interface DriverStats {
  passes: number;
  rounds: number;
  actions: number;
}

/** How a pass ended: nothing left to do, or `maxRounds` reached while the planner still acted. */
export type PassEnd = 'settled' | 'more';

/**
 * Drives one queue: fold its state, read the facts, plan, carry out the actions on the code host and
 * CI, record each outcome, and plan again until a round changes nothing. The engine, the simulator and
 * the tests all drive queues with this class; only the ports behind it differ. Scheduling (events,
 * ticks, backoff) is the caller's: see QueueLoop.
 */
export class QueueDriver {
  readonly stats: DriverStats = { passes: 0, rounds: 0, actions: 0 };
  private stopped = false;
  private entries = 0;
  private quiet = false;

  private wokeAt = 0;
  private decided = false;
  private dueUntilMs: number | undefined;
  /**
   * Swept test branches, deleted when the pass's other work is done: the sweep comes in the round a
   * verdict lands in, and deleting its branches first (one git each, 5–10 ms of process creation on
   * a slow VM) held back the merge and the next check (issue 26). Not deleted alongside the builds
   * either: deleting `railyard-merge/pr-<n>/<old run>` removes the directory `pr-<n>/` that a new run
   * of the same PR is creating its ref in.
   */
  private readonly toSweep = new Map<string, RepoRef>();

  constructor(private readonly deps: DriverDeps) {}

  private hop(hop: DriverHop): void {
    this.deps.observeHop?.(hop, (this.deps.now().getTime() - this.wokeAt) / 1000);
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * How long after the last pass a start it held for a verdict due within moments may go ahead without
   * that verdict (engine/run-times.ts): the owner wakes the queue then, since no event may come.
   */
  get wakeInMs(): number | undefined {
    return this.dueUntilMs === undefined ? undefined : Math.max(0, this.dueUntilMs - this.deps.now().getTime());
  }

  /** Entries (terminal ones included) of the state the last round planned: what a round's work grows with. */
  get lastEntries(): number {
    return this.entries;
  }

  /**
   * The last pass settled with nothing to do and no PR in the queue. Nothing but an event (the queue's
   * own stream, the code host, CI) can then give a pass work: no rule of the planner acts on time alone
   * without a PR, so the engine's tick leaves such a queue to those wake-ups and to its verify timer.
   */
  get idle(): boolean {
    return this.quiet;
  }

  /** A pass deletes the branches it swept last: they are gone when it returns, and a failed deletion fails it. */
  async pass(opts: { verify?: boolean } = {}): Promise<PassEnd> {
    let end: PassEnd;
    try {
      end = await this.rounds(opts);
    } catch (err) {
      await this.deleteSwept().catch(() => undefined);
      throw err;
    }
    await this.deleteSwept();
    return end;
  }

  private async deleteSwept(): Promise<void> {
    let failed: unknown;
    for (const [branch, repo] of this.toSweep) {
      await this.deps.host.deleteBranch(repo, branch).catch((err: unknown) => (failed ??= err));
      this.toSweep.delete(branch);
    }
    if (failed !== undefined) throw failed;
  }

  private async rounds(opts: { verify?: boolean }): Promise<PassEnd> {
    this.stats.passes++;
    const maxRounds = this.deps.maxRounds ?? 200;
    let verify = opts.verify ?? false;
    this.wokeAt = this.deps.now().getTime();
    this.decided = false;
    this.quiet = false;
    for (let round = 0; round < maxRounds; round++) {
      if (this.stopped) return 'settled';
      const state = await this.deps.log.read();
      this.entries = state.entries.size;
      if (!state.exists) return 'settled';
      await this.ensureCi(state);
      const facts = await this.deps.facts.read(state, { verify });
      verify = false;
      const now = this.deps.now();
      const actions = (this.deps.plan ?? realPlan)(state, now.toISOString(), facts);
      this.dueUntilMs = dueSoon(state, now.getTime())?.untilMs;
      if (actions.length === 0) {
        this.quiet = activeEntries(state).length === 0;
        return 'settled';
      }
      this.stats.rounds++;
      if (!this.decided) this.hop('decided');
      this.decided = true;
      const starts = actions.filter((a): a is StartRun => a.kind === 'startRun');
      if (starts.length > 1 && starts.length === actions.length) {
        this.stats.actions += starts.length;
        if ((await this.startRuns(state, starts)) === 'nothing') return 'settled';
        continue;
      }
      let progressed = false;
      for (const action of actions) {
        if (this.stopped) return 'settled';
        this.stats.actions++;
        const act = () => this.act(state, action);
        const outcome = await (this.deps.observe ? this.deps.observe(action.kind, act) : act());
        if (outcome !== 'nothing') progressed = true;
        if (outcome === 'replan') break;
      }
      // A round that changed nothing would only repeat itself: wait for the next event or tick.
      if (!progressed) return 'settled';
    }
    return this.stopped ? 'settled' : 'more';
  }

  /** After a restart the CI knows nothing of the runs still testing: start their checks again. */
  private async ensureCi(s: QueueState): Promise<void> {
    for (const run of s.runs.values()) {
      if (run.status !== 'testing' || this.deps.ci.isRunning(run.testRunId)) continue;
      await this.deps.ci.trigger({
        repo: s.repo,
        sha: run.testBranchSha,
        configSha: gatingConfigCommit(run),
        branch: run.testBranch,
        testRunId: run.testRunId,
        timeoutMinutes: s.settings.testingTimeoutMinutes,
        ...(run.retry && run.retry.contexts.length > 0 ? { rerun: { contexts: [...run.retry.contexts], attempt: run.retry.attempt } } : {}),
      });
    }
  }

  private async record(s: QueueState, command: EngineCommand): Promise<readonly QueueEvent[] | null> {
    try {
      const events = await this.deps.log.execute(command);
      for (const e of events) {
        // Returns once the stop is decided; processes and checkouts are reaped in the background.
        if (e.type === 'TestRunCancelled' || e.type === 'TestRunTimedOut' || e.type === 'TestRunFailed' || e.type === 'TestRunSucceeded')
          await this.deps.ci.cancel(e.data.testRunId);
        if (e.type === 'TestRunInfrastructureRetried') await this.retryChecks(s, e.data.testRunId, e.data.contexts);
      }
      if (events.length > 0) this.deps.onRecorded?.(s, events);
      if (events.length > 0)
        this.deps.logger.info('engine recorded', { queueId: s.queueId, command: command.type, events: events.map((e) => e.type) });
      return events;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      this.deps.logger.warn('engine command no longer applies', {
        queueId: s.queueId,
        command: command.type,
        code: err.code,
        message: err.message,
      });
      return null;
    }
  }

  private async act(s: QueueState, a: Action): Promise<Outcome> {
    switch (a.kind) {
      case 'record': {
        const events = await this.record(s, a.command);
        return events === null ? 'replan' : events.length > 0 ? 'done' : 'nothing';
      }
      case 'startRun':
        return this.startRun(s, a);
      case 'merge':
        return this.merge(s, a);
      case 'directMerge':
        return this.directMerge(s, a);
      case 'completeMerge':
        return this.completeMerge(s, a.prNumber, a.mergeSha, a.testRunId, a.reason);
      case 'deleteBranch':
        return this.sweepBranch(s, a.branch);
    }
  }

  /** Leaves a swept branch to the pass's end; one already left is not asked again. */
  private sweepBranch(s: QueueState, branch: string): Outcome {
    if (this.toSweep.has(branch)) return 'nothing';
    this.toSweep.set(branch, s.repo);
    return 'done';
  }

  private async retryChecks(s: QueueState, testRunId: string, contexts: string[]): Promise<void> {
    const run = s.runs.get(testRunId);
    if (!run) return;
    const req = {
      repo: s.repo,
      sha: run.testBranchSha,
      configSha: gatingConfigCommit(run),
      branch: run.testBranch,
      testRunId,
      timeoutMinutes: s.settings.testingTimeoutMinutes,
    };
    if (this.deps.ci.retry) await this.deps.ci.retry({ ...req, contexts });
    else await this.deps.ci.trigger(req);
    this.deps.facts.forgetStatuses?.(s, run.testBranchSha);
  }

  private async startRun(s: QueueState, a: StartRun): Promise<Outcome> {
    return this.commitRun(s, a, await this.prepareRun(s, a));
  }

  /**
   * The independent runs of one round (the planner's starts or bisection halves): their branches are
   * built at once, up to `startConcurrency`, and each is recorded and its check started in plan order
   * as soon as it and the ones before it are ready. When one no longer applies (a conflict, a command
   * refused) the rest are dropped, their branches deleted, and the planner decides again.
   */
  private async startRuns(s: QueueState, actions: readonly StartRun[]): Promise<Outcome> {
    const limit = pLimit(this.deps.startConcurrency ?? 4);
    const observe = this.deps.observe ?? (<T>(_kind: Action['kind'], run: () => Promise<T>) => run());
    let abandoned = false;
    // Builds not begun when the round is abandoned are skipped (undefined), so every promise settles.
    const prepared = actions.map((a) =>
      limit(() => (abandoned ? Promise.resolve(undefined) : observe('startRun', () => this.prepareRun(s, a)))),
    );
    // Each is awaited in order below; until then a failure must not count as unhandled.
    for (const p of prepared) p.catch(() => undefined);
    let committed = 0;
    let progressed = false;
    try {
      for (const a of actions) {
        if (this.stopped) return 'done';
        const p = (await prepared[committed]) as Prepared;
        committed++;
        const outcome = await this.commitRun(s, a, p);
        if (outcome !== 'nothing') progressed = true;
        if (outcome === 'replan') return 'replan';
      }
    } finally {
      abandoned = true;
      await this.dropBranches(s, prepared.slice(committed));
    }
    return progressed ? 'done' : 'nothing';
  }

  /** Deletes the branches built for runs that will not be recorded (a run before them no longer applied). */
  private async dropBranches(s: QueueState, prepared: readonly Promise<Prepared | undefined>[]): Promise<void> {
    for (const result of await Promise.allSettled(prepared)) {
      if (result.status === 'fulfilled' && result.value?.ok)
        await this.deps.host.deleteBranch(s.repo, result.value.built.branch, result.value.built.sha);
    }
  }

  /** Builds the run's test branch and resolves what gates it: the host's part, before anything is recorded. */
  private async prepareRun(s: QueueState, a: StartRun): Promise<Prepared> {
    const testRunId = this.deps.newRunId();
    const built = await this.deps.host.buildTestBranch(s.repo, {
      baseSha: a.baseSha,
      stack: a.stack,
      method: s.settings.mergeMethod,
      testRunId,
      prNumber: a.prNumber,
    });
    if (!built.ok) return { ok: false, testRunId, built };
    this.hop('branch_built');
    // The run is gated by its base's files, never by the tested tree's (the PR may change them).
    const configSha = gatingConfigCommit(a);
    const required = await this.deps.ci.resolveRequiredStatuses({
      queueList: s.requiredStatuses,
      repo: s.repo,
      configSha,
      branch: s.branch,
    });
    const configNotUsed = 'error' in required ? [] : await this.configNotUsed(s, a, built.steps);
    return { ok: true, testRunId, built, configSha, required, configNotUsed };
  }

  /** Records a prepared run (or why it cannot start) and starts its check. */
  private async commitRun(s: QueueState, a: StartRun, p: Prepared): Promise<Outcome> {
    const { testRunId } = p;
    if (!p.ok) {
      const { number, with: culprit, paths } = p.built.conflict;
      const files = paths.length > 0 ? `: ${paths.join(', ')}` : '';
      const what =
        culprit === 'base' ? `the target branch ${s.branch} (at ${a.baseSha.slice(0, 12)})` : `PR #${culprit} ahead of it in the queue`;
      // In a batch the PR that does not apply fails, not the batch; a PR stacked under the run fails the first tested one, as alone.
      const tested = a.prNumbers.includes(number);
      const detail = tested
        ? `PR #${number} conflicts with ${what}${files}`
        : `PR #${number}, stacked under this run, no longer applies on ${what}${files}`;
      await this.record(s, { type: 'FailPr', prNumber: tested ? number : a.prNumber, reason: 'START_TEST_RUN_MERGE_CONFLICT', detail });
      return 'replan';
    }
    const { built, configSha, required, configNotUsed } = p;
    if ('error' in required) {
      await this.deps.host.deleteBranch(s.repo, built.branch, built.sha);
      await this.record(s, { type: 'FailPr', prNumber: a.prNumber, reason: required.error, detail: required.message });
      return 'replan';
    }
    const events = await this.record(s, {
      type: 'StartTestRun',
      testRunId,
      testBranch: built.branch,
      testBranchSha: built.sha,
      baseSha: a.baseSha,
      baseTree: a.baseTree,
      steps: built.steps.map((st) => ({ prNumber: st.number, sha: st.sha, tree: st.tree })),
      prNumbers: a.prNumbers,
      dependentPrs: a.dependentPrs,
      requiredStatuses: required.statuses,
      requiredStatusesSource: required.source,
      ...(configNotUsed.length > 0 ? { configNotUsed } : {}),
      ...(required.localChecks && required.localChecks.length > 0 ? { localChecks: required.localChecks } : {}),
    });
    if (events === null) {
      await this.deps.host.deleteBranch(s.repo, built.branch, built.sha);
      return 'replan';
    }
    await this.deps.ci.trigger({
      repo: s.repo,
      sha: built.sha,
      configSha,
      branch: built.branch,
      testRunId,
      timeoutMinutes: s.settings.testingTimeoutMinutes,
    });
    this.hop('check_started');
    return 'done';
  }

  /**
   * Tested PRs of a new run that change the gating configuration files: the run uses its base's
   * files, and their explanations say so. A lookup that fails only leaves the sentence out.
   */
  private async configNotUsed(s: QueueState, a: StartRun, steps: readonly { number: number; sha: string }[]): Promise<ConfigNotUsed[]> {
    const out: ConfigNotUsed[] = [];
    if (!this.deps.ci.configChanges) return out;
    for (const [i, step] of steps.entries()) {
      if (!a.prNumbers.includes(step.number)) continue;
      const from = i === 0 ? a.baseSha : (steps[i - 1]?.sha ?? a.baseSha);
      try {
        const files = await this.deps.ci.configChanges(s.repo, from, step.sha);
        if (files.length > 0) out.push({ prNumber: step.number, files });
      } catch (err) {
        this.deps.logger.warn('could not tell whether a PR changes the gating configuration', {
          queueId: s.queueId,
          prNumber: step.number,
          message: (err as Error).message,
        });
      }
    }
    return out;
  }

  /**
   * Whether the PR is still what the queue holds (open, same head, same base). Facts come from events
   * and a slower verification; a missed push must never land the old head, so a landing asks first.
   */
  private async stillQueued(s: QueueState, prNumber: number): Promise<boolean> {
    const pr = await this.deps.host.pullRequest(s.repo, prNumber);
    const entry = s.entries.get(prNumber);
    if (pr && entry && pr.state === 'open' && pr.headSha === entry.headSha && pr.baseBranch === s.branch) return true;
    this.deps.facts.forgetPull(s, prNumber);
    return false;
  }

  /**
   * Moves the target to the PR's tested commit(s) by compare-and-swap, from the head the planner saw.
   * When the target holds the tree the run stacked the PR on, under other commits (PRs ahead merged
   * from their own runs), the PR's commits are copied onto it with their trees unchanged: the target
   * then holds exactly the tested tree. In parallel mode other lanes may have merged since the run
   * started; the PR's commits are then replayed onto them. A replay that conflicts means the impacted
   * targets said two PRs were independent while git says they touch the same lines: the PR fails
   * with the files named.
   */
  private async merge(s: QueueState, a: Extract<Action, { kind: 'merge' }>): Promise<Outcome> {
    const target = await this.deps.facts.target(s);
    if (!target || target.sha !== a.onto) return 'replan';
    if (!(await this.stillQueued(s, a.prNumber))) return 'replan';
    let newSha: string;
    if (target.sha === a.before.sha) newSha = a.after.sha;
    else if (target.tree === a.before.tree) {
      const copied = await this.deps.host.carryOnto(s.repo, { mode: 'copy', from: a.before.sha, to: a.after.sha, onto: target.sha });
      if (!copied.ok) return 'replan';
      newSha = copied.sha;
    } else if (s.settings.mode === 'parallel') {
      const replayed = await this.deps.host.carryOnto(s.repo, { mode: 'replay', from: a.before.sha, to: a.after.sha, onto: target.sha });
      if (!replayed.ok) {
        const detail = `PR #${a.prNumber} passed its tests but no longer applies on ${s.branch} after PRs of other lanes merged: ${replayed.paths.join(', ') || 'unrelated histories'}; their impacted targets did not overlap with this PR's, check the targets`;
        await this.record(s, {
          type: 'FailPr',
          prNumber: a.prNumber,
          reason: 'GITHUB_API_MERGE_PR_FAILED',
          detail,
          testRunId: a.testRunId,
        });
        return 'replan';
      }
      newSha = replayed.sha;
    } else return 'replan';
    if (!(await this.land(s, newSha, target.sha))) return 'replan';
    return this.completeMerge(s, a.prNumber, newSha, a.testRunId, 'MERGE_GRAPH_MERGE', target.sha);
  }

  private async directMerge(s: QueueState, a: Extract<Action, { kind: 'directMerge' }>): Promise<Outcome> {
    if (!(await this.stillQueued(s, a.prNumber))) return 'replan';
    const newSha = await this.deps.host.directMergeCommit(s.repo, {
      baseSha: a.baseSha,
      headSha: a.headSha,
      prNumber: a.prNumber,
      title: s.entries.get(a.prNumber)?.title ?? '',
      method: s.settings.mergeMethod,
    });
    if (!(await this.land(s, newSha, a.baseSha))) return 'replan';
    return this.completeMerge(s, a.prNumber, newSha, undefined, 'MERGE_GRAPH_DIRECT_MERGE', a.baseSha);
  }

  private async land(s: QueueState, sha: string, expected: string): Promise<boolean> {
    const landing = await this.deps.host.land(s.repo, { branch: s.branch, sha, expected });
    this.deps.facts.forgetTarget(s);
    if (landing.landed) {
      this.hop('merge_landed');
      return true;
    }
    this.deps.logger.warn('target branch moved under the engine; planning again', { queueId: s.queueId, expected, actual: landing.actual });
    return false;
  }

  /** The host PR is marked before the merge is recorded, so a crash in between is repaired by recognising the merge. */
  private async completeMerge(
    s: QueueState,
    prNumber: number,
    mergeSha: string,
    testRunId: string | undefined,
    reason: 'MERGE_GRAPH_MERGE' | 'MERGE_GRAPH_DIRECT_MERGE' | 'MANUAL_MERGE',
    ontoSha?: string,
  ): Promise<Outcome> {
    await this.deps.host.markMerged(s.repo, prNumber);
    const events = await this.record(s, {
      type: 'MarkMerged',
      prNumber,
      mergeSha,
      ...(ontoSha !== undefined ? { ontoSha } : {}),
      ...(testRunId !== undefined ? { testRunId } : {}),
      reason,
    });
    return events === null ? 'replan' : 'done';
  }
}
