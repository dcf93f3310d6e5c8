import type { RepoRef, ReportedStatus } from '@railyard/domain';
import type { CiPort, CiTrigger, RequiredStatusesAnswer } from '@railyard/queue-driver';
import type { CiModel } from './ci-model';
import type { GitModel } from './git-model';
import type { World } from './world';

/**
 * The modelled CI behind the engine's CI port: a trigger draws the run's verdict and duration
 * (CiModel) and puts its answer on the simulation's agenda. What a real CI would check out, the
 * model reads from the test branch the git model built and the run the queue recorded.
 */
export class SimCi implements CiPort {
  constructor(
    private readonly w: World,
    private readonly git: GitModel,
    private readonly model: CiModel,
    private readonly answersAt: (testRunId: string, at: number) => void,
  ) {}

  async trigger(req: CiTrigger): Promise<void> {
    const run = this.w.state.runs.get(req.testRunId);
    const built = this.git.builtAt(req.sha);
    if (!run || !built) throw new Error(`CI was asked to test ${req.testRunId}, which the queue or the host does not know`);
    const ran = this.model.trigger({
      testRunId: req.testRunId,
      testBranchSha: req.sha,
      stack: built.stack,
      tested: [...run.prNumbers],
      bisection: run.bisection,
      baseVersion: built.baseVersion,
      startedAt: this.w.now + this.w.workload.engine.runOverheadSeconds * 1000,
    });
    this.answersAt(ran.testRunId, ran.endsAt + this.w.workload.engine.reactSeconds * 1000);
  }

  /** The queue's record of the run's end stops the model's clock (World.apply); nothing to kill. */
  async cancel(): Promise<void> {}

  isRunning(testRunId: string): boolean {
    return this.model.get(testRunId) !== undefined;
  }

  async statuses(_repo: RepoRef, sha: string): Promise<ReportedStatus[]> {
    return this.model.statuses(sha);
  }

  onChange(): () => void {
    return () => undefined;
  }

  async resolveRequiredStatuses(): Promise<RequiredStatusesAnswer> {
    return { statuses: [...this.w.state.requiredStatuses], source: 'merge_instance' };
  }

  async close(): Promise<void> {}
}
