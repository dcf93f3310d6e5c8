import { randomUUID } from 'node:crypto';
import { DomainError, plan, queueStreamOf, type Action, type EngineCommand, type QueueEvent, type QueueState } from '@railyard/domain';
import { GitHostError, isGitHostError, repoDirOf, type LocalGitAdmin, type LocalGitWriter } from '@railyard/githost';
import { errorFields, type Logger, timeEngineAction } from '@railyard/observability';
import type { CiPort } from './ci/port';
import type { EngineCommands } from './engine-commands';
import type { FactsReader } from './facts';
import { copyCommitsOnto, directMergeCommit, replayCommitsOnto } from './git/commits';

export interface DriverDeps {
  commands: EngineCommands;
  facts: FactsReader;
  writer: LocalGitWriter;
  admin: LocalGitAdmin;
  ci: CiPort;
  gitRoot: string;
  logger: Logger;
  now: () => Date;
  /** Whether this process may drive the queue now (a lease in the distributed shape). */
  owns: (queueId: string) => Promise<boolean>;
  /** Rounds of plan → act per pass before yielding to other queues. */
  maxRounds?: number;
}

type Outcome = 'done' | 'replan' | 'nothing';

/** What the engine measured about itself; read by benchmarks and logs. */
export interface DriverStats {
  passes: number;
  rounds: number;
  actions: number;
}

/**
 * Drives one queue: fold its state, plan, carry out the actions on the host and CI, record each
 * outcome, and plan again until nothing is left. Passes never overlap; a trigger during a pass
 * makes one more pass after it.
 */
export class QueueDriver {
  private dirty = false;
  private sweep = false;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  readonly stats: DriverStats = { passes: 0, rounds: 0, actions: 0 };

  constructor(
    readonly queueId: string,
    private readonly deps: DriverDeps,
  ) {}

  private get stream(): string {
    return queueStreamOf(this.queueId);
  }

  schedule(opts: { sweep?: boolean } = {}): void {
    if (this.stopped) return;
    this.dirty = true;
    if (opts.sweep) this.sweep = true;
    this.running ??= this.loop().finally(() => {
      this.running = null;
      if (this.dirty && !this.stopped) this.schedule();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.running;
  }

  /** Settles once no pass is running or due. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      const sweep = this.sweep;
      this.sweep = false;
      try {
        if (!(await this.deps.owns(this.queueId))) return;
        await this.pass(sweep);
        this.failures = 0;
      } catch (err) {
        this.failures++;
        const delay = Math.min(30_000, 100 * 2 ** Math.min(this.failures, 8));
        this.deps.logger.error('engine pass failed; retrying', { queueId: this.queueId, delayMs: delay, ...errorFields(err) });
        this.retryTimer = setTimeout(() => this.schedule({ sweep: true }), delay);
        this.retryTimer.unref();
        return;
      }
    }
  }

  private async pass(sweep: boolean): Promise<void> {
    this.stats.passes++;
    const maxRounds = this.deps.maxRounds ?? 200;
    for (let round = 0; round < maxRounds && !this.stopped; round++) {
      const state = await this.deps.commands.read(this.stream);
      if (!state.exists) return;
      await this.ensureCi(state);
      const facts = await this.deps.facts.read(state, { sweep });
      const actions = plan(state, this.deps.now().toISOString(), facts);
      if (actions.length === 0) return;
      this.stats.rounds++;
      let progressed = false;
      for (const action of actions) {
        if (this.stopped) return;
        this.stats.actions++;
        // Observed per kind of action (railyard_engine_action_duration_seconds), so a slow git host or CI shows.
        const outcome = await timeEngineAction(action.kind, () => this.act(state, action));
        if (outcome !== 'nothing') progressed = true;
        if (outcome === 'replan') break;
      }
      // A round that changed nothing would only repeat itself: wait for the next event or tick.
      if (!progressed) return;
    }
    if (!this.stopped) this.dirty = true;
  }

  /** After a restart the CI knows nothing of the runs still testing: start their checks again. */
  private async ensureCi(s: QueueState): Promise<void> {
    for (const run of s.runs.values()) {
      if (run.status !== 'testing' || this.deps.ci.isRunning(run.testRunId)) continue;
      await this.deps.ci.trigger({
        repo: s.repo,
        sha: run.testBranchSha,
        branch: run.testBranch,
        testRunId: run.testRunId,
        timeoutMinutes: s.settings.testingTimeoutMinutes,
      });
    }
  }

  private async record(command: EngineCommand): Promise<QueueEvent[] | null> {
    try {
      const { events } = await this.deps.commands.execute(this.stream, command, randomUUID());
      for (const e of events) {
        if (e.type === 'TestRunCancelled' || e.type === 'TestRunTimedOut' || e.type === 'TestRunFailed' || e.type === 'TestRunSucceeded')
          await this.deps.ci.cancel(e.data.testRunId);
      }
      if (events.length > 0)
        this.deps.logger.info('engine recorded', { queueId: this.queueId, command: command.type, events: events.map((e) => e.type) });
      return events;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      this.deps.logger.warn('engine command no longer applies', {
        queueId: this.queueId,
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
        const events = await this.record(a.command);
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
        await this.deps.writer.deleteBranch(s.repo, a.branch).catch((err: unknown) => {
          if (!isGitHostError(err, 'REF_MOVED')) throw err;
        });
        return 'done';
    }
  }

  private async startRun(s: QueueState, a: Extract<Action, { kind: 'startRun' }>): Promise<Outcome> {
    const testRunId = randomUUID();
    const built = await this.deps.writer.buildTestBranch(s.repo, {
      baseSha: a.baseSha,
      stack: a.stack,
      method: s.settings.mergeMethod,
      testRunId,
      prNumber: a.prNumber,
    });
    if (!built.ok) {
      const { number, with: culprit, paths } = built.conflict;
      const files = paths.length > 0 ? `: ${paths.join(', ')}` : '';
      const what =
        culprit === 'base' ? `the target branch ${s.branch} (at ${a.baseSha.slice(0, 12)})` : `PR #${culprit} ahead of it in the queue`;
      // In a batch the PR that does not apply fails, not the batch; a PR stacked under the run fails the first tested one, as alone.
      const tested = a.prNumbers.includes(number);
      const detail = tested
        ? `PR #${number} conflicts with ${what}${files}`
        : `PR #${number}, stacked under this run, no longer applies on ${what}${files}`;
      await this.record({ type: 'FailPr', prNumber: tested ? number : a.prNumber, reason: 'START_TEST_RUN_MERGE_CONFLICT', detail });
      return 'replan';
    }
    const required = await this.deps.ci.resolveRequiredStatuses({ queueList: s.requiredStatuses, repo: s.repo, sha: built.sha });
    if ('error' in required) {
      await this.deps.writer.deleteBranch(s.repo, built.branch, built.sha);
      await this.record({ type: 'FailPr', prNumber: a.prNumber, reason: required.error, detail: required.message });
      return 'replan';
    }
    const events = await this.record({
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
    });
    if (events === null) {
      await this.deps.writer.deleteBranch(s.repo, built.branch, built.sha).catch(() => false);
      return 'replan';
    }
    await this.deps.ci.trigger({
      repo: s.repo,
      sha: built.sha,
      branch: built.branch,
      testRunId,
      timeoutMinutes: s.settings.testingTimeoutMinutes,
    });
    return 'done';
  }

  private gitDir(s: QueueState): string {
    const dir = repoDirOf(this.deps.gitRoot, s.repo);
    if (dir === null) throw new GitHostError('INVALID_INPUT', `not a valid repository: ${s.repo.owner}/${s.repo.name}`);
    return dir;
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
    let newSha: string;
    if (target.sha === a.before.sha) newSha = a.after.sha;
    else if (target.tree === a.before.tree) newSha = await copyCommitsOnto(this.gitDir(s), a.before.sha, a.after.sha, target.sha);
    else if (s.settings.mode === 'parallel') {
      const replayed = await replayCommitsOnto(this.gitDir(s), a.before.sha, a.after.sha, target.sha);
      if (!replayed.ok) {
        const detail = `PR #${a.prNumber} passed its tests but no longer applies on ${s.branch} after PRs of other lanes merged: ${replayed.paths.join(', ') || 'unrelated histories'}; their impacted targets did not overlap with this PR's, check the targets`;
        await this.record({ type: 'FailPr', prNumber: a.prNumber, reason: 'GITHUB_API_MERGE_PR_FAILED', detail, testRunId: a.testRunId });
        return 'replan';
      }
      newSha = replayed.sha;
    } else return 'replan';
    if (!(await this.moveTarget(s, newSha, target.sha))) return 'replan';
    return this.completeMerge(s, a.prNumber, newSha, a.testRunId, 'MERGE_GRAPH_MERGE', target.sha);
  }

  private async directMerge(s: QueueState, a: Extract<Action, { kind: 'directMerge' }>): Promise<Outcome> {
    const entry = s.entries.get(a.prNumber);
    const newSha = await directMergeCommit(this.gitDir(s), {
      baseSha: a.baseSha,
      headSha: a.headSha,
      prNumber: a.prNumber,
      title: entry?.title ?? '',
      method: s.settings.mergeMethod,
      committer: { name: 'Railyard', email: 'railyard@localhost' },
      date: `${Math.floor(this.deps.now().getTime() / 1000)} +0000`,
    });
    if (!(await this.moveTarget(s, newSha, a.baseSha))) return 'replan';
    return this.completeMerge(s, a.prNumber, newSha, undefined, 'MERGE_GRAPH_DIRECT_MERGE', a.baseSha);
  }

  private async moveTarget(s: QueueState, newSha: string, expected: string): Promise<boolean> {
    try {
      await this.deps.writer.moveBranch(s.repo, s.branch, newSha, expected);
      return true;
    } catch (err) {
      if (isGitHostError(err, 'REF_MOVED') || isGitHostError(err, 'LOCKED')) {
        this.deps.logger.warn('target branch moved under the engine; planning again', { queueId: this.queueId, ...errorFields(err) });
        return false;
      }
      throw err;
    }
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
    await this.deps.admin.markPullRequestMerged({ repo: s.repo, number: prNumber }).catch((err: unknown) => {
      // Already merged (a crash after marking) or closed meanwhile: the target holds the PR either way.
      if (!isGitHostError(err, 'PR_MERGED') && !isGitHostError(err, 'PR_CLOSED')) throw err;
    });
    const events = await this.record({
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
