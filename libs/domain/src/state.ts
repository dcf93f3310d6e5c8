import { DEFAULT_SETTINGS, type QueueMode, type QueueRunState, type QueueSettings, type RequestableQueueState } from './config';
import { entryStateAfter, isTerminal, type PrState, type QueueEvent, type StatusReporters, type TargetsRef } from './events';
import type {
  CommitStatusState,
  ConfigNotUsed,
  FailureJudgement,
  FlakeRetry,
  HostProblemCode,
  RequiredStatusesSource,
  TestRunStep,
} from './events-engine';
import type { RepoRef } from './ids';
import { evolveEntry, submittedEntry, type EntryFacts } from './entry';
import { EntryMap, planOrderIndexOf } from './entry-order';
import { foldFailureRate } from './engine/batch-size';
import { countsAsRerun, foldRerunPasses, type RerunPasses } from './engine/rerun-passes';
import { countsAsRunTime, foldRunTimes, type RunTimes } from './engine/run-times';
import type { NotCountedWhy } from './status-reporters';

/** An entry of the queue: the facts every side folds alike (entry.ts), and the write side's scheduling fields. */
export interface Entry extends EntryFacts {
  /** The run that decides this entry now: its own, or a successor's that passed with it (optimistic merge). */
  testRunId?: string;
  /**
   * Set when the entry first starts testing in this cycle and kept through restarts: entries in flight
   * keep their places by it, so a PR submitted later with a higher priority never jumps a started one.
   */
  readonly flightSeq?: number;
  /** Cleared by a bisection and back in the queue: its next run tests it alone, so a failure between halves cannot rebuild the same batch forever. */
  retestAlone?: boolean;
  /**
   * A run started with this entry stacked under it since its own run started: it has a successor, an
   * anti-flake witness of a failure. Kept here because a successor's run leaves the state once its own
   * PR moves to another run, and the evidence must not be asked for again.
   */
  hasSuccessor?: true;
  /**
   * A run with this entry stacked under it failed since its own run started: evidence that a failure
   * of unknown kind of the entry is real, so it steps aside instead of holding its place (D322).
   */
  successorFailed?: true;
  /**
   * The PRs whose runs stacked this entry and failed (successorFailed), less those that failed again in
   * a run without it: that failure was their own, so it no longer says anything of this entry (D342).
   */
  failedSuccessors?: number[];
  /**
   * A run with this entry stacked under it passed since its own run started: its change passed once,
   * so a failure of unknown kind of its own is most likely a flake. It keeps its place whatever runs
   * behind fail next, and its re-runs may go on up to MAX_FLAKE_RETRIES (D336).
   */
  successorPassed?: true;
}

export type TestRunStatus = 'testing' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

export interface TestRun {
  testRunId: string;
  testBranch: string;
  testBranchSha: string;
  baseSha: string;
  baseTree?: string;
  steps: TestRunStep[];
  /** PRs this run tests. */
  prNumbers: number[];
  /** PRs ahead stacked under the tested ones, in merge order. */
  dependentPrs: number[];
  requiredStatuses: string[];
  requiredStatusesSource: RequiredStatusesSource;
  /** Last state seen per status context; `infrastructureError` when CI could not give a verdict (no failure), with when it was seen. */
  statuses: Record<string, { state: CommitStatusState; url?: string; infrastructureError?: { code: string; message: string; at: string } }>;
  /** Infrastructure retries asked for so far (TestRunInfrastructureRetried). */
  infrastructureRetries?: number;
  /** Set once the retries are used up (TestRunStuck): no more automatic retries, no timeout; an operator restarts it. */
  stuck?: { code: string; since: string };
  status: TestRunStatus;
  failedContexts: string[];
  bisection: boolean;
  /** The failed run this bisection run splits. */
  bisectionOf?: string;
  /** The PRs that failed run tested: with its sibling halves' results, what bisection may conclude without running. */
  bisectedPrs?: number[];
  /** A re-run of a failed run on the same commit (docs/engine.md, Flakes). */
  retry?: FlakeRetry;
  /** Tested PRs whose changes to the gating configuration files the run did not use (it used its base's). */
  configNotUsed?: ConfigNotUsed[];
  /** The contexts the local CI runs for this run: only its statuses count for them (absent on runs recorded before). */
  localChecks?: string[];
  /** Statuses on the run's commit that did not count, per `${context}\0${reporter}`: the latest of each. */
  notCounted?: Record<string, NotCountedStatus>;
  /** What the run's test results said of its failure, once it failed. */
  judgement?: FailureJudgement;
  /**
   * A failure this run descends from was genuine (a healthy test failed): its own, or, for a
   * bisection half, the split batch's. Bisection's inferences from it are then never re-run.
   */
  genuineFailure?: boolean;
  /**
   * A re-run's view of the statuses its failed run saw for the re-run checks: the same report seen
   * again (CI posting for the same commit, read before the re-run's own) is not the re-run's answer.
   */
  superseded?: Record<string, { state: CommitStatusState; url?: string }>;
  createdAt: string;
  endedAt?: string;
}

export interface NotCountedStatus {
  context: string;
  state: CommitStatusState;
  url?: string;
  reporter?: string;
  why: NotCountedWhy;
}

/** The key a run keeps a status that did not count under. */
export const notCountedKey = (context: string, reporter: string | undefined): string => `${context}\0${reporter ?? ''}`;

export interface QueueState {
  exists: boolean;
  queueId: string;
  repo: RepoRef;
  branch: string;
  runState: QueueRunState;
  pendingMode?: QueueMode;
  /** While switching modes: the state the queue returns to once the switch completes. */
  resumeState?: RequestableQueueState;
  settings: QueueSettings;
  /** The queue's own (manual) list; empty means "not set": the run takes the repository's config. */
  requiredStatuses: string[];
  /** Per context, who may report it (ReporterPolicy); empty: nobody is named for any context. */
  statusReporters: StatusReporters;
  /**
   * The hot window: PRs in the queue, and terminal ones a kept run still names (its stack or its
   * bisection). What the planner and the engine's commands walk; it does not grow with history.
   */
  entries: Map<number, Entry>;
  /**
   * Books closed (docs/decisions.md D250): the most recently ended PRs that left the window, oldest
   * first, at most CLOSED_KEPT. Commands about a PR that ended (a re-submission's entry id, "no longer
   * in the queue") and the API's answers from the stream read them through `entryOf`.
   */
  closed: Map<number, Entry>;
  /** Impacted targets per PR, per head SHA: the last upload for a SHA wins. */
  targets: Map<number, Map<string, TargetsRef>>;
  nextSeq: number;
  /** Test runs still relevant: running, or deciding an entry still in the queue. Ended runs no entry needs are dropped. */
  runs: Map<string, TestRun>;
  nextFlightSeq: number;
  /**
   * Target heads the queue's own merges produced, each with the head it was made on (most recent last,
   * bounded). Parallel mode walks it back from the target to tell its own merges in other lanes from a
   * foreign push.
   */
  mergedOnto: Map<string, string>;
  /** Set while the engine reports that it cannot drive the queue (QueueHostProblemReported), with when that began. */
  hostProblem?: { code: HostProblemCode; detail: string; since: string };
  /** Moving estimate of how often a PR fails in this queue (engine/batch-size.ts); absent before any outcome. */
  failureRate?: number;
  /** How often a re-run of a failure no test results name passes (engine/rerun-passes.ts); absent before any. */
  rerunPasses?: RerunPasses;
  /** How long the queue's runs take (engine/run-times.ts); absent before the first passing run. */
  runTimes?: RunTimes;
}

export const initialQueueState = (): QueueState => ({
  exists: false,
  queueId: '',
  repo: { host: '', owner: '', name: '' },
  branch: '',
  runState: 'running',
  settings: { ...DEFAULT_SETTINGS },
  requiredStatuses: [],
  statusReporters: {},
  entries: new EntryMap(),
  closed: new Map(),
  targets: new Map(),
  nextSeq: 0,
  runs: new Map(),
  nextFlightSeq: 0,
  mergedOnto: new Map(),
});

export const activeEntries = (s: QueueState): Entry[] => [...s.entries.values()].filter((e) => !isTerminal(e.state));

/** A PR's entry, in the queue or among the recently closed ones; undefined if never submitted, or closed long ago. */
export const entryOf = (s: QueueState, prNumber: number): Entry | undefined => s.entries.get(prNumber) ?? s.closed.get(prNumber);

/** Every entry the state knows: the hot window, then the recently closed ones. */
export const knownEntries = (s: QueueState): Entry[] => [...s.entries.values(), ...s.closed.values()];

/** Queue order: priority first (lower value first), then submission order. */
export const byQueueOrder = (a: Entry, b: Entry): number => a.priorityValue - b.priorityValue || a.seq - b.seq;

export const targetsFor = (s: QueueState, prNumber: number, headSha: string): TargetsRef | undefined =>
  s.targets.get(prNumber)?.get(headSha);

// Old SHAs' uploads are useless once the PR moved on; keep a few so a quick push-and-revert still finds its list.
const TARGET_SHAS_KEPT = 8;
// Enough to reach back to the base of any run in flight: a run older than this many merges is long stale.
const MERGES_KEPT = 10_000;
/**
 * Ended PRs kept whole after they leave the hot window: enough for any command or read-while-lagging
 * about a recent PR; older ones are answered by the read models, which keep every PR.
 */
export const CLOSED_KEPT = 1_000;

/**
 * Folds one event into the state. For speed on long streams it reuses the maps of the state it is
 * given: treat the input as consumed and keep only the returned state.
 */
export const evolve = (state: QueueState, event: QueueEvent): QueueState => {
  const s = applyTestRuns(applyQueueLevel(state, event), event);
  const prNumber = (event.data as { prNumber?: unknown }).prNumber;
  const e = typeof prNumber === 'number' && event.type !== 'PrSubmitted' ? entryOf(s, prNumber) : undefined;
  if (e) {
    const next = evolveEntry(e, event);
    if (next !== e) (s.entries.has(e.prNumber) ? s.entries : s.closed).set(e.prNumber, next);
    if (entryStateAfter(event) && isTerminal(next.state)) dropUnusedRuns(s);
    const outcome = outcomeOf(e.state, next.state);
    if (outcome !== undefined) return { ...s, failureRate: foldFailureRate(s.failureRate, outcome === 'failed') };
  }
  return s;
};

/** A merge or a failure counts towards the queue's failure rate; a cancellation says nothing of the PR. */
export const outcomeOf = (before: PrState, after: PrState): 'merged' | 'failed' | undefined =>
  before === after || isTerminal(before) ? undefined : after === 'merged' || after === 'failed' ? after : undefined;

const updateRun = (s: QueueState, testRunId: string, change: (r: TestRun) => TestRun): QueueState => {
  const run = s.runs.get(testRunId);
  if (run) s.runs.set(testRunId, change(run));
  return s;
};

/** Marks the PRs stacked under a run that ended, still testing or pending failure, with what its outcome says of them. */
const witnessedBy = (s: QueueState, testRunId: string, flag: 'successorPassed' | 'successorFailed'): void => {
  for (const n of s.runs.get(testRunId)?.dependentPrs ?? []) {
    const e = s.entries.get(n);
    if ((e?.state === 'testing' || e?.state === 'pending_failure') && !e[flag]) s.entries.set(n, { ...e, [flag]: true });
  }
};

/**
 * Keeps, for each PR a failed run stacked, the PRs that run tested (Entry.failedSuccessors); a PR that
 * fails in a run without it is struck from its list: that failure needs nothing under it (D342).
 */
const failedSuccessorsAfter = (s: QueueState, testRunId: string): void => {
  const run = s.runs.get(testRunId);
  if (!run) return;
  const stacked = new Set(run.dependentPrs);
  // Only PRs in flight can hold such a list: the started ones, not every PR the queue keeps (issue 29).
  for (const e of [...planOrderIndexOf(s.entries).started]) {
    if (e.state !== 'testing' && e.state !== 'pending_failure') continue;
    const before = e.failedSuccessors ?? [];
    const after = stacked.has(e.prNumber) ? [...new Set([...before, ...run.prNumbers])] : before.filter((n) => !run.prNumbers.includes(n));
    if (after.length !== before.length) s.entries.set(e.prNumber, { ...e, failedSuccessors: after });
  }
};

const endRun = (s: QueueState, testRunId: string, status: TestRunStatus, at: string, failedContexts: string[] = []): QueueState => {
  updateRun(s, testRunId, (r) => ({ ...r, status, endedAt: at, failedContexts }));
  dropUnusedRuns(s);
  return s;
};

/** Keeps the state bounded on long streams: an ended run matters only while an active entry points at it. */
const dropUnusedRuns = (s: QueueState): void => {
  const used = new Set<string>();
  for (const e of s.entries.values()) if (e.testRunId !== undefined && !isTerminal(e.state)) used.add(e.testRunId);
  for (const [id, run] of s.runs) if (run.status !== 'testing' && !used.has(id)) s.runs.delete(id);
  closeBooks(s);
};

/**
 * Moves ended PRs no kept run names out of the hot window (D250). A run's stack and bisection name
 * PRs the planner still reads (a dependency merged, a half cleared), so those stay until the run goes.
 */
const closeBooks = (s: QueueState): void => {
  const named = new Set<number>();
  for (const r of s.runs.values())
    for (const list of [r.prNumbers, r.dependentPrs, r.bisectedPrs ?? []]) for (const n of list) named.add(n);
  for (const e of s.entries.values()) {
    if (!isTerminal(e.state) || named.has(e.prNumber)) continue;
    s.entries.delete(e.prNumber);
    s.closed.delete(e.prNumber);
    s.closed.set(e.prNumber, e);
  }
  while (s.closed.size > CLOSED_KEPT) {
    const oldest = s.closed.keys().next().value as number;
    s.closed.delete(oldest);
    if (!s.entries.has(oldest)) s.targets.delete(oldest);
  }
};

/** A re-run starts with the checks its failed run passed: only the failed ones are asked again. */
const passedBefore = (from: TestRun | undefined, retried: readonly string[]): TestRun['statuses'] =>
  Object.fromEntries(Object.entries(from?.statuses ?? {}).filter(([c, st]) => st.state === 'success' && !retried.includes(c)));

const failedBefore = (from: TestRun | undefined, retried: readonly string[]): TestRun['statuses'] =>
  Object.fromEntries(Object.entries(from?.statuses ?? {}).filter(([c]) => retried.includes(c)));

/** Whether the run a new one re-runs or splits failed genuinely, or descends from one that did. */
const inheritsGenuine = (s: QueueState, from: string | undefined): boolean =>
  from !== undefined && s.runs.get(from)?.genuineFailure === true;

const applyTestRuns = (s: QueueState, event: QueueEvent): QueueState => {
  switch (event.type) {
    case 'TestRunStarted': {
      const d = event.data;
      s.runs.set(d.testRunId, {
        testRunId: d.testRunId,
        testBranch: d.testBranch,
        testBranchSha: d.testBranchSha,
        baseSha: d.baseSha,
        baseTree: d.baseTree,
        steps: d.steps ?? [],
        prNumbers: [...d.prNumbers],
        dependentPrs: [...d.dependentPrs],
        requiredStatuses: [...d.requiredStatuses],
        requiredStatusesSource: d.requiredStatusesSource,
        statuses: d.retry ? passedBefore(s.runs.get(d.retry.of), d.retry.contexts) : {},
        ...(d.retry ? { superseded: failedBefore(s.runs.get(d.retry.of), d.retry.contexts) } : {}),
        status: 'testing',
        failedContexts: [],
        bisection: d.bisection,
        ...(d.bisectionOf !== undefined
          ? {
              bisectionOf: d.bisectionOf,
              bisectedPrs: [...(d.retry ? (s.runs.get(d.retry.of)?.bisectedPrs ?? []) : (s.runs.get(d.bisectionOf)?.prNumbers ?? []))],
            }
          : {}),
        ...(d.retry ? { retry: { ...d.retry, contexts: [...d.retry.contexts] } } : {}),
        ...(d.configNotUsed ? { configNotUsed: d.configNotUsed.map((x) => ({ prNumber: x.prNumber, files: [...x.files] })) } : {}),
        ...(d.localChecks ? { localChecks: [...d.localChecks] } : {}),
        ...(inheritsGenuine(s, d.retry?.of ?? d.bisectionOf) ? { genuineFailure: true } : {}),
        createdAt: d.at,
      });
      for (const n of d.dependentPrs) {
        const e = s.entries.get(n);
        if ((e?.state === 'testing' || e?.state === 'pending_failure') && !e.hasSuccessor) s.entries.set(n, { ...e, hasSuccessor: true });
      }
      return s;
    }
    case 'TestRunStatusReported': {
      const { context, state, url, infrastructureError, at } = event.data;
      return updateRun(s, event.data.testRunId, (r) => ({
        ...r,
        statuses: {
          ...r.statuses,
          [context]: {
            state,
            ...(url === undefined ? {} : { url }),
            ...(infrastructureError === undefined ? {} : { infrastructureError: { ...infrastructureError, at } }),
          },
        },
      }));
    }
    case 'TestRunStatusNotCounted': {
      const { context, state, url, reporter, why } = event.data;
      return updateRun(s, event.data.testRunId, (r) => ({
        ...r,
        notCounted: {
          ...r.notCounted,
          [notCountedKey(context, reporter)]: {
            context,
            state,
            ...(url === undefined ? {} : { url }),
            ...(reporter === undefined ? {} : { reporter }),
            why,
          },
        },
      }));
    }
    case 'TestRunInfrastructureRetried': {
      const { contexts, attempt } = event.data;
      return updateRun(s, event.data.testRunId, (r) => ({
        ...r,
        infrastructureRetries: attempt,
        statuses: { ...r.statuses, ...Object.fromEntries(contexts.map((c) => [c, { state: 'pending' as const }])) },
      }));
    }
    case 'TestRunStuck':
      return updateRun(s, event.data.testRunId, (r) => ({ ...r, stuck: { code: event.data.code, since: event.data.at } }));
    case 'TestRunSucceeded': {
      witnessedBy(s, event.data.testRunId, 'successorPassed');
      const run = s.runs.get(event.data.testRunId);
      const rerun = countsAsRerun(run);
      const timed = countsAsRunTime(run) ? foldRunTimes(s.runTimes, Date.parse(event.data.at) - Date.parse(run.createdAt)) : s.runTimes;
      const passed = endRun(s, event.data.testRunId, 'succeeded', event.data.at);
      const withTimes = timed === undefined ? passed : { ...passed, runTimes: timed };
      return rerun ? { ...withTimes, rerunPasses: foldRerunPasses(s.rerunPasses, true) } : withTimes;
    }
    case 'TestRunFailed': {
      const { testRunId, judgement } = event.data;
      if (judgement !== undefined)
        updateRun(s, testRunId, (r) => ({ ...r, judgement, ...(judgement === 'genuine' ? { genuineFailure: true } : {}) }));
      witnessedBy(s, testRunId, 'successorFailed');
      failedSuccessorsAfter(s, testRunId);
      const rerun = countsAsRerun(s.runs.get(testRunId));
      const failed = endRun(s, testRunId, 'failed', event.data.at, event.data.failedContexts);
      return rerun ? { ...failed, rerunPasses: foldRerunPasses(s.rerunPasses, false) } : failed;
    }
    case 'TestRunTimedOut':
      return endRun(s, event.data.testRunId, 'timed_out', event.data.at);
    case 'TestRunCancelled':
      return endRun(s, event.data.testRunId, 'cancelled', event.data.at);
    case 'PrTestingStarted': {
      const e = s.entries.get(event.data.prNumber);
      if (!e) return s;
      const flightSeq = e.flightSeq ?? s.nextFlightSeq;
      // A re-run of the same commit is the same test: the successors that stacked the PR still witness it.
      const rerun = s.runs.get(event.data.testRunId)?.retry !== undefined;
      const {
        retestAlone: _done,
        hasSuccessor: _old,
        successorFailed: _evidence,
        failedSuccessors: _explained,
        successorPassed: _proof,
        ...rest
      } = e;
      s.entries.set(e.prNumber, { ...(rerun ? e : rest), testRunId: event.data.testRunId, flightSeq });
      dropUnusedRuns(s);
      return e.flightSeq === undefined ? { ...s, nextFlightSeq: s.nextFlightSeq + 1 } : s;
    }
    case 'PrTestsPassed':
    case 'PrPendingFailure': {
      const e = s.entries.get(event.data.prNumber);
      if (e) s.entries.set(e.prNumber, { ...e, testRunId: event.data.testRunId });
      return s;
    }
    case 'TestsRestarted': {
      const e = s.entries.get(event.data.prNumber);
      if (!e) return s;
      // Pre-empted by an urgent PR, or back from a re-run the PRs behind did not wait for: it queues again behind them.
      if (event.data.reason === 'SKIP_THE_LINE_INTERRUPTED' || event.data.reason === 'FLAKE_RETRY_PASSED') {
        const { flightSeq: _gone, ...rest } = e;
        s.entries.set(e.prNumber, rest);
      }
      if (event.data.reason === 'BISECTION_TEST_RUN_PASSED')
        s.entries.set(e.prNumber, { ...(s.entries.get(e.prNumber) as Entry), retestAlone: true });
      return s;
    }
    case 'PrMerged': {
      const { mergeSha, ontoSha } = event.data;
      if (ontoSha === undefined || ontoSha === mergeSha) return s;
      s.mergedOnto.delete(mergeSha);
      s.mergedOnto.set(mergeSha, ontoSha);
      if (s.mergedOnto.size > MERGES_KEPT) s.mergedOnto.delete(s.mergedOnto.keys().next().value as string);
      return s;
    }
    default:
      return s;
  }
};

const copyReporters = (r: StatusReporters): StatusReporters => Object.fromEntries(Object.entries(r).map(([c, who]) => [c, [...who]]));

const applyQueueLevel = (state: QueueState, event: QueueEvent): QueueState => {
  switch (event.type) {
    case 'QueueCreated': {
      const d = event.data;
      return {
        ...initialQueueState(),
        exists: true,
        queueId: d.queueId,
        repo: d.repo,
        branch: d.branch,
        runState: d.state,
        // Settings added later (flakeRetries) take their default for queues created before them.
        settings: { ...DEFAULT_SETTINGS, ...d.settings },
        requiredStatuses: [...d.requiredStatuses],
        statusReporters: copyReporters(d.statusReporters ?? {}),
      };
    }
    case 'QueueConfigUpdated': {
      const { changes, requiredStatuses, statusReporters } = event.data;
      return {
        ...state,
        settings: { ...state.settings, ...changes },
        requiredStatuses: requiredStatuses === undefined ? state.requiredStatuses : (requiredStatuses ?? []),
        statusReporters: statusReporters === undefined ? state.statusReporters : copyReporters(statusReporters),
      };
    }
    case 'QueueStateChanged': {
      const { from, to, pendingMode, resumeState } = event.data;
      const next: QueueState = { ...state, runState: to, pendingMode };
      delete next.resumeState;
      if (to === 'switching_modes') next.resumeState = resumeState ?? (from === 'switching_modes' ? 'running' : from);
      return next;
    }
    case 'QueueDeleted':
      return { ...state, exists: false };
    case 'QueueHostProblemReported':
      return { ...state, hostProblem: { code: event.data.code, detail: event.data.detail, since: event.data.at } };
    case 'QueueHostProblemCleared': {
      const next = { ...state };
      delete next.hostProblem;
      return next;
    }
    case 'PrSubmitted': {
      state.closed.delete(event.data.prNumber);
      state.entries.set(event.data.prNumber, submittedEntry(event, state.nextSeq));
      return { ...state, nextSeq: state.nextSeq + 1 };
    }
    case 'ImpactedTargetsSet': {
      const { prNumber, headSha, digest, count, all } = event.data;
      const perSha = state.targets.get(prNumber) ?? new Map<string, TargetsRef>();
      perSha.delete(headSha);
      perSha.set(headSha, { digest, count, all });
      while (perSha.size > TARGET_SHAS_KEPT) perSha.delete(perSha.keys().next().value as string);
      state.targets.set(prNumber, perSha);
      return state;
    }
    default:
      return state;
  }
};

export const foldQueue = (events: Iterable<QueueEvent>, from: QueueState = initialQueueState()): QueueState => {
  let s = from;
  for (const e of events) s = evolve(s, e);
  return s;
};
