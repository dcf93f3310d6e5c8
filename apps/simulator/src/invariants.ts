import {
  entryOf,
  isBesideRetry,
  entryStateAfter,
  isTerminal,
  type Entry,
  type PrState,
  type QueueEvent,
  type QueueMode,
  type QueueState,
} from '@railyard/domain';
import type { CiRun } from './ci-model';
import { overlaps, type SimPr } from './pr-model';

export type InvariantCode =
  | 'MERGED_UNTESTED'
  | 'MERGE_NOT_ON_TARGET'
  | 'TREE_NOT_TESTED'
  | 'ORDER_BROKEN'
  | 'BAD_PR_MERGED'
  | 'INNOCENT_BLAMED'
  | 'TERMINAL_STATE_CHANGED'
  | 'TARGET_OUT_OF_SYNC'
  | 'BUDGET_EXCEEDED'
  | 'PR_LOST'
  | 'RUN_LEFT_RUNNING'
  | 'STACKED_MERGED_PR'
  | 'UNKNOWN_BASE'
  | 'LIVELOCK'
  | 'STALLED';

/** A broken invariant: the simulation stops at once and says where. */
export class InvariantViolation extends Error {
  override readonly name = 'InvariantViolation';
  constructor(
    readonly code: InvariantCode,
    message: string,
    readonly atMinute: number,
  ) {
    super(`${code} at minute ${atMinute.toFixed(1)}: ${message}`);
  }
}

/** What the checker may read of the modelled world. */
export interface WorldView {
  /** Simulated time, ms. */
  readonly now: number;
  readonly mode: QueueMode;
  readonly mergeLog: readonly number[];
  holds(prNumber: number): boolean;
  ciRun(testRunId: string): CiRun | undefined;
  pr(prNumber: number): SimPr | undefined;
}

export interface CheckerOptions {
  /** A run may pass with a bad PR in it; otherwise a bad PR must never merge. */
  missesPossible: boolean;
  /** Runs may fail spuriously, so a good PR may be blamed (counted, not refused). */
  flakesPossible: boolean;
  directMergeAllowed: boolean;
}

const TEST_BLAME = new Set(['TEST_RUN_REQUIRED_STATUS_FAILED', 'TEST_RUN_FAILED_BY_OPTIMIZATION']);

/**
 * Watches every event the queue records, against the model's ground truth, and throws at the first
 * broken rule. Called before each event is folded in, so `s` is the state the event was decided on.
 */
export class InvariantChecker {
  /** PRs whose re-run passed after the PRs behind went on without them: they queue again behind those. */
  private readonly reentered = new Set<number>();
  /** Each PR's state as the events moved it: the queue's state keeps only recently ended PRs (D250). */
  private readonly stateOf = new Map<number, PrState>();

  constructor(private readonly o: CheckerOptions) {}

  onEvent(s: QueueState, event: QueueEvent, w: WorldView): void {
    const minute = w.now / 60_000;
    const fail = (code: InvariantCode, message: string): never => {
      throw new InvariantViolation(code, message, minute);
    };
    const moved = entryStateAfter(event);
    if (moved && event.type !== 'PrSubmitted') {
      const before = entryOf(s, moved.prNumber)?.state ?? this.stateOf.get(moved.prNumber);
      if (before && isTerminal(before) && before !== moved.state)
        fail('TERMINAL_STATE_CHANGED', `PR #${moved.prNumber} was ${before} and ${event.type} moves it to ${moved.state}`);
    }
    if (moved) this.stateOf.set(moved.prNumber, moved.state);
    if (event.type === 'TestsRestarted' && event.data.reason === 'FLAKE_RETRY_PASSED') this.reentered.add(event.data.prNumber);
    if (event.type === 'PrMerged') this.onMerge(s, event.data, w, fail);
    // A missed breakage fails the runs stacked on it later, which may then blame a good PR: only exact verdicts make blame checkable.
    const verdictsExact = !this.o.flakesPossible && !this.o.missesPossible;
    if (event.type === 'PrFailed' && TEST_BLAME.has(event.data.reason) && verdictsExact && w.pr(event.data.prNumber)?.bad === false)
      fail('INNOCENT_BLAMED', `PR #${event.data.prNumber} is good and every verdict is exact, yet it failed with ${event.data.reason}`);
  }

  /**
   * A PR ahead that the PRs behind may pass (docs/engine.md, Flakes): one whose failure is being
   * settled (pending failure, or testing in a re-run on the same commit), or one that came back
   * from such a re-run behind them. Planners that hold the queue behind a failure never merge past
   * these, so the exemption only widens what a re-run beside the queue may do.
   */
  private besideTheQueue(s: QueueState, e: Entry): boolean {
    if (this.reentered.has(e.prNumber) || e.state === 'pending_failure') return true;
    return e.state === 'testing' && e.testRunId !== undefined && s.runs.get(e.testRunId)?.retry !== undefined;
  }

  private onMerge(
    s: QueueState,
    d: Extract<QueueEvent, { type: 'PrMerged' }>['data'],
    w: WorldView,
    fail: (c: InvariantCode, m: string) => never,
  ): void {
    const n = d.prNumber;
    if (!w.holds(n)) fail('MERGE_NOT_ON_TARGET', `PR #${n} is recorded merged but the target branch does not hold it`);
    if (d.reason === 'MERGE_GRAPH_DIRECT_MERGE') {
      if (!this.o.directMergeAllowed) fail('MERGED_UNTESTED', `PR #${n} merged directly although direct merge is off`);
      if (w.pr(n)?.headChecks !== 'success') fail('MERGED_UNTESTED', `PR #${n} merged directly although its own checks did not pass`);
    } else {
      this.checkBackingRun(n, d.testRunId, w, fail);
    }
    const pr = w.pr(n);
    if (pr?.bad && !this.o.missesPossible) fail('BAD_PR_MERGED', `PR #${n} is bad and no test misses a bad PR, yet it merged`);
    const me = entryOf(s, n);
    if (!me || !pr) return;
    for (const e of s.entries.values()) {
      if (e.prNumber === n || isTerminal(e.state) || e.state === 'not_ready') continue;
      if (e.priorityValue !== me.priorityValue || e.seq > me.seq || this.besideTheQueue(s, e)) continue;
      const other = w.pr(e.prNumber);
      if (w.mode === 'single' || (other && overlaps(pr, other)))
        fail(
          'ORDER_BROKEN',
          `PR #${n} merged while PR #${e.prNumber}, ahead of it at the same priority${w.mode === 'parallel' ? ' and overlapping it' : ''}, is still ${e.state}`,
        );
    }
  }

  /**
   * The merge must be backed by a run CI passed, which stacked the PR, and whose tree up to the PR is
   * what the target now holds: exactly in single mode; in parallel mode other lanes merge in between,
   * so the target may also hold PRs that do not overlap this one. An extra PR that overlaps only one
   * of the PRs this one was stacked on is fine: that pair was checked when the later of them merged
   * (tested together, or an ORDER_BROKEN).
   */
  private checkBackingRun(n: number, testRunId: string | undefined, w: WorldView, fail: (c: InvariantCode, m: string) => never): void {
    const run = testRunId === undefined ? undefined : w.ciRun(testRunId);
    if (!run) return fail('MERGED_UNTESTED', `PR #${n} merged without a test run the CI knows (${testRunId ?? 'none named'})`);
    // A failure only of quarantined tests is a pass (docs/engine.md, Flakes).
    const quarantinedOnly = run.failing.length > 0 && run.failing.every((t) => t.health === 'quarantined');
    if (!run.reported || (run.outcome !== 'success' && !quarantinedOnly))
      fail('MERGED_UNTESTED', `PR #${n} merged on run ${run.testRunId}, which CI ${run.reported ? 'failed' : 'has not finished'}`);
    const index = run.stack.indexOf(n);
    if (index < 0) fail('MERGED_UNTESTED', `PR #${n} merged on run ${run.testRunId}, which did not contain it`);
    const tested = run.stack.slice(0, index + 1);
    const since = w.mergeLog.slice(run.baseVersion);
    const sinceSet = new Set(since);
    const missing = tested.filter((x) => !sinceSet.has(x));
    if (missing.length > 0)
      fail('TREE_NOT_TESTED', `PR #${n} merged but PR(s) ${missing.join(', ')} it was tested on are not on the target`);
    const testedSet = new Set(tested);
    const extra = since.filter((x) => !testedSet.has(x));
    if (extra.length === 0) return;
    if (w.mode === 'single')
      fail('TREE_NOT_TESTED', `PR #${n} merged onto PR(s) ${extra.join(', ')} that run ${run.testRunId} never tested with it`);
    const me = w.pr(n);
    for (const x of extra) {
      const px = w.pr(x);
      if (!me || !px || overlaps(me, px))
        fail('TREE_NOT_TESTED', `PR #${n} merged onto PR #${x}, which overlaps it but was not in run ${run.testRunId}`);
    }
  }

  /** Once the engine has nothing left to do at an instant: log and host agree, and the run budgets hold. */
  atQuiescence(s: QueueState, w: WorldView, merged: number): void {
    const minute = w.now / 60_000;
    if (merged !== w.mergeLog.length)
      throw new InvariantViolation(
        'TARGET_OUT_OF_SYNC',
        `${merged} PR(s) recorded merged, ${w.mergeLog.length} on the target branch`,
        minute,
      );
    let main = 0;
    let beside = 0;
    let bisection = 0;
    for (const run of s.runs.values()) {
      if (run.status !== 'testing') continue;
      if (run.bisection) bisection++;
      else if (isBesideRetry(s, run)) beside++;
      else main++;
    }
    // Re-runs beside the queue have a budget of their own; those past it took a slot of the queue's.
    main += Math.max(0, beside - s.settings.flakeRetryConcurrency);
    if (main > s.settings.concurrency)
      throw new InvariantViolation('BUDGET_EXCEEDED', `${main} runs in flight, concurrency is ${s.settings.concurrency}`, minute);
    if (bisection > s.settings.bisectionConcurrency)
      throw new InvariantViolation(
        'BUDGET_EXCEEDED',
        `${bisection} bisection runs in flight, bisectionConcurrency is ${s.settings.bisectionConcurrency}`,
        minute,
      );
  }

  /** At the end: every PR was submitted and ended, unless the run was cut at its time limit. */
  atEnd(s: QueueState, w: WorldView, generated: number, stoppedAtLimit: boolean): void {
    const minute = w.now / 60_000;
    if (stoppedAtLimit) return;
    for (let n = 1; n <= generated; n++) {
      const state = entryOf(s, n)?.state ?? this.stateOf.get(n);
      if (!state) throw new InvariantViolation('PR_LOST', `PR #${n} arrived but was never submitted`, minute);
      if (!isTerminal(state))
        throw new InvariantViolation(
          'PR_LOST',
          `PR #${n} is still ${state} although the simulation ran until nothing was left to do`,
          minute,
        );
    }
    for (const run of s.runs.values())
      if (run.status === 'testing')
        throw new InvariantViolation('RUN_LEFT_RUNNING', `run ${run.testRunId} is still testing with no PR left`, minute);
  }
}
