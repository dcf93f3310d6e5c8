import type { CheckSuite, FakeApp, FakeInstallation, FakeRepo } from './model';
import type { View } from './representations/view';
import type { SchemaValidator } from './schema-validator';
import type { FakeState } from './state';
import type { WebhookSender } from './webhook-sender';

/** Behaviour switches of the fake that real GitHub does not let you choose but does exhibit. */
export interface Behaviour {
  /** How long after a push that contains a PR's head GitHub flags the PR merged. */
  mergedFlagDelayMs: number;
  /** What mergeable_state reads in that window: GitHub has been seen to answer "dirty" there. */
  pendingMergeState: 'dirty' | 'unknown';
  /** How long GitHub takes to compute mergeability after the first read that asked for it. */
  mergeabilityDelayMs: number;
  /** Added to every answer, so that requests sent at once would overlap. */
  latencyMs: number;
}

/** What the routes, the control API and the lifecycle rules share. */
export class FakeCore {
  readonly view: View;
  private readonly locks = new Map<number, Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Background tasks whose timer fired and which have not finished: stop() waits for them. */
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  readonly violations: string[] = [];
  /** Called after a branch moved to a commit (not for deletions): the fake CI listens here. */
  readonly branchListeners: ((repo: FakeRepo, branch: string, sha: string) => void)[] = [];
  /** Called when a check suite is re-requested, with the App that owns it (GitHub tells that App): the fake CI listens here. */
  readonly suiteRerequestListeners: ((repo: FakeRepo, suite: CheckSuite) => void)[] = [];

  constructor(
    /** Where the bare repositories live. */
    readonly root: string,
    readonly state: FakeState,
    urls: View['urls'],
    readonly app: FakeApp,
    readonly ciApp: FakeApp,
    readonly webhooks: WebhookSender,
    readonly validator: SchemaValidator | null,
    readonly behaviour: Behaviour,
  ) {
    this.view = { state, urls };
  }

  /** Runs `fn` alone among the writes to one repository, as GitHub serialises updates of a repository's refs. */
  withRepoLock<T>(repoId: number, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(repoId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    this.locks.set(
      repoId,
      next.catch(() => undefined),
    );
    return next;
  }

  /** Runs `fn` after `ms` unless the fake stopped; errors are recorded as violations, never thrown into a timer. */
  later(ms: number, fn: () => Promise<void> | void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopped) return;
      const task = Promise.resolve()
        .then(fn)
        .catch((err: unknown) => {
          this.violations.push(`background task failed: ${String(err)}`);
        });
      this.running.add(task);
      void task.finally(() => this.running.delete(task));
    }, ms);
    this.timers.add(timer);
  }

  /**
   * Starts no more background work and waits for what is running: a mergeability computation still
   * writing objects into a repository made removing the fake's directory fail with ENOTEMPTY.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.running]);
  }

  /** The primary App's installation on `repo`, when it is installed there and not suspended: who receives its webhooks. */
  listeningInstallation(repo: FakeRepo): FakeInstallation | undefined {
    const inst = this.state.installationFor(this.app.id, repo);
    return inst && inst.suspendedAt === null ? inst : undefined;
  }

  /** Sends a repository event to the App if it listens on that repository. */
  emitFor(repo: FakeRepo, event: string, action: string | null, build: (inst: FakeInstallation) => Record<string, unknown>): void {
    const inst = this.listeningInstallation(repo);
    if (!inst) return;
    if (!this.app.events.includes(event)) return;
    this.webhooks.emit(event, action, build(inst));
  }

  recordViolation(where: string, errors: string[]): void {
    this.violations.push(`${where}: ${errors.join('; ')}`);
  }
}
