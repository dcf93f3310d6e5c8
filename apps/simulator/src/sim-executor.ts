import type { Action, HostFacts, QueueState } from '@railyard/domain';
import { InvariantViolation } from './invariants';
import type { World } from './world';

/** The planner the simulator drives: the real `plan` by default, a stand-in in tests. */
export type Planner = (s: QueueState, now: string, facts: HostFacts) => Action[];

type Outcome = 'done' | 'replan' | 'nothing';

/** More rounds than this at one instant means the planner keeps acting without converging. */
const MAX_ROUNDS_PER_INSTANT = 5_000;

/**
 * Plays apps/engine's QueueDriver without I/O: plan, carry each action out on the modelled host and
 * CI, record its outcome through the real decideEngine, and plan again until a round changes nothing.
 * Per action kind it does what the driver does; where the driver talks to git, it asks the git model.
 */
export class SimExecutor {
  rounds = 0;

  constructor(
    private readonly world: World,
    private readonly planner: Planner,
    /** Schedules CI's answer for a run just triggered. */
    private readonly ciAnswersAt: (testRunId: string, at: number) => void,
  ) {}

  /** One pass of the driver at the current instant. */
  drive(): void {
    for (let round = 0; ; round++) {
      if (round >= MAX_ROUNDS_PER_INSTANT)
        throw new InvariantViolation('LIVELOCK', `the planner still acts after ${round} rounds at one instant`, this.world.now / 60_000);
      const actions = this.planner(this.world.state, this.world.nowIso(), this.world.facts());
      if (actions.length === 0) return;
      this.rounds++;
      let progressed = false;
      for (const action of actions) {
        const outcome = this.act(action);
        if (outcome !== 'nothing') progressed = true;
        if (outcome === 'replan') break;
      }
      if (!progressed) return;
    }
  }

  private recordOutcome(events: unknown[] | null): Outcome {
    return events === null ? 'replan' : events.length > 0 ? 'done' : 'nothing';
  }

  private act(a: Action): Outcome {
    const w = this.world;
    switch (a.kind) {
      case 'record':
        return this.recordOutcome(w.record(a.command));
      case 'startRun':
        return this.startRun(a);
      case 'merge':
        return this.merge(a);
      case 'directMerge': {
        const newSha = w.git.newSha();
        if (!w.git.merge(a.prNumber, newSha, a.baseSha)) return 'replan';
        return this.recordOutcome(
          w.record({ type: 'MarkMerged', prNumber: a.prNumber, mergeSha: newSha, ontoSha: a.baseSha, reason: 'MERGE_GRAPH_DIRECT_MERGE' }),
        );
      }
      case 'completeMerge':
        return this.recordOutcome(
          w.record({
            type: 'MarkMerged',
            prNumber: a.prNumber,
            mergeSha: a.mergeSha,
            ...(a.testRunId !== undefined ? { testRunId: a.testRunId } : {}),
            reason: a.reason,
          }),
        );
      case 'deleteBranch':
        w.git.deleteBranch(a.branch);
        return 'done';
    }
  }

  private startRun(a: Extract<Action, { kind: 'startRun' }>): Outcome {
    const w = this.world;
    const stack = a.stack.map((p) => p.number);
    const onTarget = w.git.alreadyOn(a.baseSha, stack);
    if (onTarget.length > 0)
      throw new InvariantViolation(
        'STACKED_MERGED_PR',
        `run for PR #${a.prNumber} stacks PR(s) ${onTarget.join(', ')} already on its base`,
        w.now / 60_000,
      );
    const tested = [...a.prNumbers];
    const testRunId = w.newId('run');
    const built = w.git.buildTestBranch(testRunId, a.prNumber, a.baseSha, stack);
    if (!built.ok && 'unknownBase' in built)
      throw new InvariantViolation(
        'UNKNOWN_BASE',
        `run for PR #${a.prNumber} is to be built on ${built.unknownBase}, which the target branch never was`,
        w.now / 60_000,
      );
    if (!built.ok) {
      // As the driver: in a batch the PR that does not apply fails; one stacked under the run fails the first tested PR.
      const what = built.with === 'base' ? `the target branch ${w.state.branch}` : `PR #${built.with} ahead of it in the queue`;
      const isTested = tested.includes(built.number);
      const detail = isTested
        ? `PR #${built.number} conflicts with ${what}`
        : `PR #${built.number}, stacked under this run, no longer applies on ${what}`;
      w.record({ type: 'FailPr', prNumber: isTested ? built.number : a.prNumber, reason: 'START_TEST_RUN_MERGE_CONFLICT', detail });
      return 'replan';
    }
    const testBranch = `railyard-merge/pr-${a.prNumber}/${testRunId}`;
    const events = w.record({
      type: 'StartTestRun',
      testRunId,
      testBranch,
      testBranchSha: built.sha,
      baseSha: a.baseSha,
      baseTree: a.baseTree,
      steps: built.steps,
      prNumbers: tested,
      dependentPrs: a.dependentPrs,
      requiredStatuses: [...w.state.requiredStatuses],
      requiredStatusesSource: 'merge_instance',
    });
    if (events === null) {
      w.git.deleteBranch(testBranch);
      return 'replan';
    }
    const bisection = events.some((e) => e.type === 'TestRunStarted' && e.data.bisection);
    const run = w.ci.trigger({
      testRunId,
      testBranchSha: built.sha,
      stack,
      tested,
      bisection,
      baseVersion: built.baseVersion,
      startedAt: w.now,
    });
    this.ciAnswersAt(run.testRunId, run.endsAt);
    return 'done';
  }

  /**
   * As the driver: from the head the planner saw, a fast-forward to the tested commit, a copy onto
   * commits holding the same tree, or (parallel mode, other lanes merged meanwhile) a replay, which
   * fails the PR when git finds a conflict its impacted targets did not announce.
   */
  private merge(a: Extract<Action, { kind: 'merge' }>): Outcome {
    const w = this.world;
    const target = w.git.target();
    if (target.sha !== a.onto) return 'replan';
    let newSha: string;
    if (target.sha === a.before.sha) newSha = a.after.sha;
    else if (target.tree === a.before.tree) newSha = w.git.newSha();
    else if (w.state.settings.mode === 'parallel') {
      const conflict = w.git.replayConflict(a.prNumber);
      if (conflict !== undefined) {
        const detail = `PR #${a.prNumber} passed its tests but no longer applies on ${w.state.branch} after PR #${conflict} of another lane merged`;
        w.record({ type: 'FailPr', prNumber: a.prNumber, reason: 'GITHUB_API_MERGE_PR_FAILED', detail, testRunId: a.testRunId });
        return 'replan';
      }
      newSha = w.git.newSha();
    } else return 'replan';
    if (!w.git.merge(a.prNumber, newSha, target.sha)) return 'replan';
    return this.recordOutcome(
      w.record({
        type: 'MarkMerged',
        prNumber: a.prNumber,
        mergeSha: newSha,
        ontoSha: target.sha,
        testRunId: a.testRunId,
        reason: 'MERGE_GRAPH_MERGE',
      }),
    );
  }
}
