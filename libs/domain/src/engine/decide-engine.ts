import type { DecideContext } from '../commands/types';
import { requireEntry, requireQueue } from '../commands/guards';
import { DomainError } from '../errors';
import { isTerminal, type QueueEvent } from '../events';
import { readinessChange, readinessOf } from '../readiness';
import { readinessAfterModeChange } from '../commands/queue-admin';
import { activeEntries, notCountedKey, targetsFor, type Entry, type QueueState, type TestRun } from '../state';
import { flakeRetriesFor } from './context';
import type {
  CancelForHostChange,
  CancelTestRun,
  CompleteTestRun,
  EngineCommand,
  FailByOptimization,
  FailPr,
  MarkMerged,
  PassBySuccessor,
  RefreshReadiness,
  ReportHostProblem,
  ReportRunStuck,
  ReportStatusNotCounted,
  ReportTestStatus,
  RestartTests,
  RetryInfrastructureError,
  RetryTestRun,
  StartTestRun,
} from './commands';
import { currentRun, requiredOutcome } from './runs';

/** Pure, like the API's decide: the engine's commands against the queue's state. */
export const decideEngine = (s: QueueState, c: EngineCommand, ctx: DecideContext): QueueEvent[] => {
  requireQueue(s);
  switch (c.type) {
    case 'ReportHostProblem':
      return reportHostProblem(s, c, ctx.now);
    case 'StartTestRun':
      return startTestRun(s, c, ctx.now);
    case 'ReportTestStatus':
      return reportTestStatus(s, c, ctx.now);
    case 'ReportStatusNotCounted':
      return reportStatusNotCounted(s, c, ctx.now);
    case 'RetryInfrastructureError':
      return retryInfrastructureError(s, c, ctx.now);
    case 'ReportRunStuck':
      return reportRunStuck(s, c, ctx.now);
    case 'CompleteTestRun':
      return completeTestRun(s, c, ctx.now);
    case 'CancelTestRun':
      return cancelTestRun(s, c, ctx.now);
    case 'PassBySuccessor':
      return passBySuccessor(s, c, ctx.now);
    case 'MarkMerged':
      return markMerged(s, c, ctx.now);
    case 'FailPr':
      return failPr(s, c, ctx.now);
    case 'CancelForHostChange':
      return cancelForHostChange(s, c, ctx.now);
    case 'RestartTests':
      return restartTests(s, c, ctx.now);
    case 'RefreshReadiness':
      return refreshReadiness(s, c, ctx.now);
    case 'FailByOptimization':
      return failByOptimization(s, c, ctx.now);
    case 'RetryTestRun':
      return retryTestRun(s, c, ctx);
    case 'CompleteModeSwitch':
      return completeModeSwitch(s, ctx.now);
  }
};

/** Only a change is recorded: the same problem seen again, or none when there was none, decides nothing. */
const reportHostProblem = (s: QueueState, c: ReportHostProblem, at: string): QueueEvent[] => {
  if (c.problem === null) return s.hostProblem ? [{ type: 'QueueHostProblemCleared', data: { at } }] : [];
  if (s.hostProblem?.code === c.problem.code) return [];
  return [{ type: 'QueueHostProblemReported', data: { ...c.problem, at } }];
};

const stale = (message: string): DomainError => new DomainError('PR_NOT_IN_ACTIVE_STATE', message);

/**
 * The failed run a start splits, when every PR it tests is pending failure on that same run: the
 * start is then a bisection run (reference trunk §4.2). Undefined for an ordinary start.
 */
const bisectedRun = (s: QueueState, prNumbers: number[]): string | undefined => {
  const first = s.entries.get(prNumbers[0] as number);
  if (first?.state !== 'pending_failure' || first.testRunId === undefined) return undefined;
  return prNumbers.every((n) => {
    const e = s.entries.get(n);
    return e?.state === 'pending_failure' && e.testRunId === first.testRunId;
  })
    ? first.testRunId
    : undefined;
};

const startTestRun = (s: QueueState, c: StartTestRun, at: string): QueueEvent[] => {
  if (s.runs.has(c.testRunId)) return [];
  if (c.prNumbers.length === 0) throw new DomainError('INVALID_ARGUMENT', 'a test run tests at least one PR');
  if (new Set(c.prNumbers).size !== c.prNumbers.length || c.prNumbers.some((n) => c.dependentPrs.includes(n)))
    throw new DomainError('INVALID_ARGUMENT', 'a test run names each PR once');
  const bisectionOf = bisectedRun(s, c.prNumbers);
  if (bisectionOf === undefined)
    for (const n of c.prNumbers) {
      const e = requireEntry(s, n);
      if (e.state !== 'pending') throw stale(`PR #${n} is ${e.state}; only a pending PR, or the PRs of one failed run, start testing`);
    }
  for (const n of c.dependentPrs) {
    const e = requireEntry(s, n);
    if (isTerminal(e.state) || e.state === 'not_ready') throw stale(`PR #${n} ahead is ${e.state}; it cannot be stacked under a run`);
  }
  const { type: _type, configNotUsed, localChecks, ...data } = c;
  const notUsed = (configNotUsed ?? []).filter((x) => c.prNumbers.includes(x.prNumber) && x.files.length > 0);
  const started = {
    ...data,
    prNumbers: [...c.prNumbers],
    dependentPrs: [...c.dependentPrs],
    bisection: bisectionOf !== undefined,
    ...(notUsed.length > 0 ? { configNotUsed: notUsed.map((x) => ({ prNumber: x.prNumber, files: [...x.files] })) } : {}),
    ...(localChecks && localChecks.length > 0 ? { localChecks: [...new Set(localChecks)] } : {}),
    at,
  };
  return [
    ...(bisectionOf === undefined
      ? []
      : c.prNumbers.map((prNumber): QueueEvent => ({ type: 'TestsRestarted', data: { prNumber, reason: 'BISECTION_REQUIRED', at } }))),
    { type: 'TestRunStarted', data: bisectionOf === undefined ? started : { ...started, bisectionOf } },
    ...c.prNumbers.map((prNumber): QueueEvent => ({ type: 'PrTestingStarted', data: { prNumber, testRunId: c.testRunId, at } })),
  ];
};

const TERMINAL_STATUS = new Set(['success', 'failure', 'error']);

const reportTestStatus = (s: QueueState, c: ReportTestStatus, at: string): QueueEvent[] => {
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'testing') return [];
  const seen = run.statuses[c.context];
  if (seen && seen.state === c.state && seen.url === c.url) return [];
  // A late "pending" must not hide a result already recorded for the same check.
  if (seen && TERMINAL_STATUS.has(seen.state) && c.state === 'pending') return [];
  // A re-run is not answered by the very report that failed the run it re-runs.
  const old = run.superseded?.[c.context];
  if (old && old.state === c.state && old.url === c.url) return [];
  const data = {
    testRunId: c.testRunId,
    context: c.context,
    state: c.state,
    ...(c.url !== undefined ? { url: c.url } : {}),
    ...(c.infrastructureError !== undefined && c.state === 'error' ? { infrastructureError: c.infrastructureError } : {}),
    ...(c.reporter !== undefined ? { reporter: c.reporter } : {}),
    at,
  };
  return [{ type: 'TestRunStatusReported', data }];
};

/** Kept once per reporter and state, so the explanation can say who was not counted; it changes no outcome. */
const reportStatusNotCounted = (s: QueueState, c: ReportStatusNotCounted, at: string): QueueEvent[] => {
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'testing') return [];
  const seen = run.notCounted?.[notCountedKey(c.context, c.reporter)];
  if (seen && seen.state === c.state && seen.url === c.url && seen.why === c.why) return [];
  const data = {
    testRunId: c.testRunId,
    context: c.context,
    state: c.state,
    ...(c.url !== undefined ? { url: c.url } : {}),
    ...(c.reporter !== undefined ? { reporter: c.reporter } : {}),
    why: c.why,
    at,
  };
  return [{ type: 'TestRunStatusNotCounted', data }];
};

/** Only contexts that still stand in an infrastructure error are retried; a run that ended, is stuck, or has none decides nothing. */
const retryInfrastructureError = (s: QueueState, c: RetryInfrastructureError, at: string): QueueEvent[] => {
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'testing' || run.stuck) return [];
  const contexts = c.contexts.filter((ctx) => run.statuses[ctx]?.infrastructureError !== undefined);
  if (contexts.length === 0) return [];
  const attempt = (run.infrastructureRetries ?? 0) + 1;
  return [{ type: 'TestRunInfrastructureRetried', data: { testRunId: run.testRunId, contexts, code: c.code, attempt, at } }];
};

const reportRunStuck = (s: QueueState, c: ReportRunStuck, at: string): QueueEvent[] => {
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'testing' || run.stuck) return [];
  return [
    {
      type: 'TestRunStuck',
      data: { testRunId: run.testRunId, reason: 'INFRASTRUCTURE_RETRIES_EXHAUSTED', code: c.code, detail: c.detail, at },
    },
  ];
};

/** Tested PRs still testing on this run: the ones its outcome moves. */
const testedOn = (s: QueueState, testRunId: string, prNumbers: number[]): number[] =>
  prNumbers.filter((n) => {
    const e = s.entries.get(n);
    return e !== undefined && e.state === 'testing' && e.testRunId === testRunId;
  });

const completeTestRun = (s: QueueState, c: CompleteTestRun, at: string): QueueEvent[] => {
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'testing') return [];
  const prs = testedOn(s, run.testRunId, run.prNumbers);
  const testRunId = run.testRunId;
  if (c.outcome === 'passed') {
    const waived = new Set((c.quarantined ?? []).map((q) => q.context));
    if (requiredOutcome(run, waived).kind !== 'passed')
      throw new DomainError('INVALID_ARGUMENT', `test run ${testRunId} has not seen every required status succeed`);
    const quarantined = (c.quarantined ?? []).map((q) => ({ context: q.context, tests: [...q.tests] }));
    return [
      { type: 'TestRunSucceeded', data: { testRunId, ...(quarantined.length > 0 ? { quarantined } : {}), at } },
      ...prs.map((prNumber) => passedOn(s, run, prNumber, at)),
    ];
  }
  if (c.outcome === 'failed') {
    const failedContexts = [...c.failedContexts];
    const judged = {
      ...(c.judgement !== undefined ? { judgement: c.judgement } : {}),
      ...(c.judgementDetail !== undefined ? { judgementDetail: c.judgementDetail } : {}),
    };
    return [
      { type: 'TestRunFailed', data: { testRunId, reason: c.reason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts, ...judged, at } },
      ...prs.map((prNumber): QueueEvent => ({ type: 'PrPendingFailure', data: { prNumber, testRunId, failedContexts, at } })),
    ];
  }
  const minutes = s.settings.testingTimeoutMinutes;
  // A batch that timed out does not say which PR is slow: it is bisected like a failure.
  if (run.prNumbers.length > 1)
    return [
      { type: 'TestRunTimedOut', data: { testRunId, at } },
      ...prs.map((prNumber): QueueEvent => ({ type: 'PrPendingFailure', data: { prNumber, testRunId, failedContexts: [], at } })),
    ];
  return [
    { type: 'TestRunTimedOut', data: { testRunId, at } },
    ...prs.map((prNumber): QueueEvent => ({
      type: 'PrFailed',
      data: { prNumber, reason: 'TEST_RUN_TIMEOUT', detail: `the test run did not finish within ${minutes} minute(s)`, testRunId, at },
    })),
  ];
};

/**
 * A passing bisection run clears its PRs. With bisection_skip_redundant_tests its result is reused:
 * they passed (PASSED_BY_OPTIMIZATION) and merge from it if its stack is still the queue's. Without
 * it they go back to the queue to be tested as usual (BISECTION_TEST_RUN_PASSED).
 */
const passedOn = (s: QueueState, run: TestRun, prNumber: number, at: string): QueueEvent => {
  const testRunId = run.testRunId;
  if (!run.bisection)
    return { type: 'PrTestsPassed', data: { prNumber, testRunId, reason: run.retry ? 'FLAKE_RETRIED' : 'TEST_RUN_PASSED', at } };
  if (s.settings.optimizationMode === 'bisection_skip_redundant_tests')
    return { type: 'PrTestsPassed', data: { prNumber, testRunId, reason: 'PASSED_BY_OPTIMIZATION', at } };
  return { type: 'TestsRestarted', data: { prNumber, reason: 'BISECTION_TEST_RUN_PASSED', at } };
};

const failByOptimization = (s: QueueState, c: FailByOptimization, at: string): QueueEvent[] => {
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'testing') return [];
  const proof = s.runs.get(c.provenBy);
  if (
    !run.bisection ||
    run.bisectionOf === undefined ||
    proof?.bisectionOf !== run.bisectionOf ||
    proof.status !== 'succeeded' ||
    proof.testRunId === run.testRunId
  )
    throw new DomainError('INVALID_ARGUMENT', `test run ${c.provenBy} is not a passed half of the bisection ${c.testRunId} belongs to`);
  return [
    { type: 'TestRunCancelled', data: { testRunId: run.testRunId, reason: 'BISECTION_SKIP_REDUNDANT', at } },
    ...testedOn(s, run.testRunId, run.prNumbers).map((prNumber): QueueEvent => ({
      type: 'PrPendingFailure',
      data: { prNumber, testRunId: run.testRunId, failedContexts: [], at },
    })),
  ];
};

/**
 * A re-run of a failed run on the same commit (docs/engine.md, Flakes): its PRs still pending failure
 * on it restart (FLAKE_RETRY) and test on a new run with the same branch, commit and stack. Nothing
 * when none is left on it (already re-run, or blamed). Refused past the queue's flakeRetries, or for
 * a failure its test results showed genuine.
 */
const retryTestRun = (s: QueueState, c: RetryTestRun, ctx: DecideContext): QueueEvent[] => {
  const at = ctx.now;
  const run = s.runs.get(c.testRunId);
  if (!run) return [];
  const prs = run.prNumbers.filter((n) => {
    const e = s.entries.get(n);
    return e?.state === 'pending_failure' && e.testRunId === run.testRunId;
  });
  if (prs.length === 0) return [];
  // The commit holds every PR the run tested: it answers for them only while they all wait on it.
  if (prs.length !== run.prNumbers.length)
    throw stale(`test run ${run.testRunId} tested PRs that left it; its commit no longer tests what would merge`);
  if (run.status !== 'failed' && !(run.status === 'cancelled' && run.bisection))
    throw new DomainError('INVALID_ARGUMENT', `test run ${run.testRunId} did not fail; only a failure is re-run`);
  const attempt = (run.retry?.attempt ?? 0) + 1;
  if (attempt > flakeRetriesFor(s, run))
    throw new DomainError(
      'INVALID_ARGUMENT',
      `test run ${run.testRunId} was already re-run ${attempt - 1} time(s) (flakeRetries ${s.settings.flakeRetries})`,
    );
  if (run.judgement === 'genuine')
    throw new DomainError('INVALID_ARGUMENT', `test run ${run.testRunId} failed on healthy tests; a genuine failure is not re-run`);
  const testRunId = ctx.newId();
  const data = {
    testRunId,
    testBranch: run.testBranch,
    testBranchSha: run.testBranchSha,
    baseSha: run.baseSha,
    ...(run.baseTree !== undefined ? { baseTree: run.baseTree } : {}),
    steps: run.steps.map((st) => ({ ...st })),
    prNumbers: prs,
    dependentPrs: [...run.dependentPrs],
    requiredStatuses: [...run.requiredStatuses],
    requiredStatusesSource: run.requiredStatusesSource,
    bisection: run.bisection,
    ...(run.bisectionOf !== undefined ? { bisectionOf: run.bisectionOf } : {}),
    retry: { of: run.testRunId, attempt, cause: c.cause, contexts: [...run.failedContexts], detail: c.detail },
    // The same commit on the same base: gated by the same files as the run it re-runs.
    ...(run.configNotUsed ? { configNotUsed: run.configNotUsed.map((x) => ({ prNumber: x.prNumber, files: [...x.files] })) } : {}),
    ...(run.localChecks ? { localChecks: [...run.localChecks] } : {}),
    at,
  };
  return [
    ...prs.map((prNumber): QueueEvent => ({ type: 'TestsRestarted', data: { prNumber, reason: 'FLAKE_RETRY', at } })),
    { type: 'TestRunStarted', data },
    ...prs.map((prNumber): QueueEvent => ({ type: 'PrTestingStarted', data: { prNumber, testRunId, at } })),
  ];
};

const IN_FLIGHT_STATES = new Set(['testing', 'tests_passed', 'pending_failure']);

/** The mode asked for while runs were in flight takes effect once none is left; readiness follows the new mode. */
const completeModeSwitch = (s: QueueState, at: string): QueueEvent[] => {
  if (s.runState !== 'switching_modes' || s.pendingMode === undefined) return [];
  const inFlight = activeEntries(s).filter((e) => IN_FLIGHT_STATES.has(e.state));
  if (inFlight.length > 0)
    throw stale(`PR(s) ${inFlight.map((e) => `#${e.prNumber}`).join(', ')} still in flight; the mode switch waits for them`);
  const mode = s.pendingMode;
  return [
    { type: 'QueueConfigUpdated', data: { changes: { mode }, at } },
    ...readinessAfterModeChange(s, mode, at),
    { type: 'QueueStateChanged', data: { from: 'switching_modes', to: s.resumeState ?? 'running', at } },
  ];
};

const cancelTestRun = (s: QueueState, c: CancelTestRun, at: string): QueueEvent[] => {
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'testing') return [];
  return [{ type: 'TestRunCancelled', data: { testRunId: c.testRunId, reason: c.reason, at } }];
};

/** The entry's own run, if it is still running: it is cancelled along with whatever ends the entry's test. */
const cancelOwnRun = (s: QueueState, e: Entry, reason: string, at: string): QueueEvent[] => {
  const run = currentRun(s, e);
  return run && run.status === 'testing' && run.prNumbers.includes(e.prNumber)
    ? [{ type: 'TestRunCancelled', data: { testRunId: run.testRunId, reason, at } }]
    : [];
};

const passBySuccessor = (s: QueueState, c: PassBySuccessor, at: string): QueueEvent[] => {
  const e = requireEntry(s, c.prNumber);
  if (e.state === 'tests_passed' || isTerminal(e.state)) return [];
  if (e.state !== 'testing' && e.state !== 'pending_failure')
    throw stale(`PR #${c.prNumber} is ${e.state}; only a PR testing or pending failure can pass by a successor`);
  // Without optimistic merging a PR must pass its own run to merge (D336): a successor only vouches for it.
  if (!s.settings.canOptimisticallyMerge)
    throw new DomainError('INVALID_ARGUMENT', `PR #${c.prNumber} cannot pass by a successor: canOptimisticallyMerge is off`);
  const run = s.runs.get(c.testRunId);
  if (!run || run.status !== 'succeeded' || !run.dependentPrs.includes(c.prNumber))
    throw new DomainError('INVALID_ARGUMENT', `test run ${c.testRunId} did not pass with PR #${c.prNumber} stacked in it`);
  return [
    ...cancelOwnRun(s, e, 'SUCCESSOR_TEST_RUN_PASSED', at),
    { type: 'PrTestsPassed', data: { prNumber: c.prNumber, testRunId: c.testRunId, reason: 'SUCCESSOR_TEST_RUN_PASSED', at } },
  ];
};

/**
 * Records a merge the engine already carried out on the host. It is accepted from any state but
 * merged (and failed): once the target branch holds the PR, the log must say so, even if a cancel
 * raced in between.
 */
const markMerged = (s: QueueState, c: MarkMerged, at: string): QueueEvent[] => {
  const e = requireEntry(s, c.prNumber);
  if (e.state === 'merged') return [];
  if (e.state === 'failed') throw stale(`PR #${c.prNumber} failed; it cannot be recorded as merged`);
  return [
    ...cancelOwnRun(s, e, 'PR_MERGED', at),
    {
      type: 'PrMerged',
      data: {
        prNumber: c.prNumber,
        mergeSha: c.mergeSha,
        ...(c.ontoSha !== undefined ? { ontoSha: c.ontoSha } : {}),
        ...(c.testRunId !== undefined ? { testRunId: c.testRunId } : {}),
        reason: c.reason,
        at,
      },
    },
  ];
};

const failPr = (s: QueueState, c: FailPr, at: string): QueueEvent[] => {
  const e = requireEntry(s, c.prNumber);
  if (isTerminal(e.state)) return [];
  const data = {
    prNumber: c.prNumber,
    reason: c.reason,
    detail: c.detail,
    ...(c.testRunId !== undefined ? { testRunId: c.testRunId } : {}),
    at,
  };
  return [...cancelOwnRun(s, e, c.reason, at), { type: 'PrFailed', data }];
};

const cancelForHostChange = (s: QueueState, c: CancelForHostChange, at: string): QueueEvent[] => {
  const e = requireEntry(s, c.prNumber);
  if (isTerminal(e.state)) return [];
  return [...cancelOwnRun(s, e, c.reason, at), { type: 'PrCancelled', data: { prNumber: c.prNumber, reason: c.reason, at } }];
};

const RESTARTABLE = new Set(['testing', 'tests_passed', 'pending_failure']);

const restartTests = (s: QueueState, c: RestartTests, at: string): QueueEvent[] => {
  const e = requireEntry(s, c.prNumber);
  // A waiting PR that holds a place in flight gives it up to an urgent PR too.
  const givesUpPlace = c.reason === 'SKIP_THE_LINE_INTERRUPTED' && e.state === 'pending' && e.flightSeq !== undefined;
  if (!RESTARTABLE.has(e.state) && !givesUpPlace) return [];
  return [...cancelOwnRun(s, e, c.reason, at), { type: 'TestsRestarted', data: { prNumber: c.prNumber, reason: c.reason, at } }];
};

const refreshReadiness = (s: QueueState, c: RefreshReadiness, at: string): QueueEvent[] => {
  const e = requireEntry(s, c.prNumber);
  if (e.headSha !== c.headSha) return [];
  const readiness = readinessOf({
    mode: s.settings.mode,
    queueBranch: s.branch,
    baseBranch: c.baseBranch,
    mergeability: c.mergeability,
    hasImpactedTargets: targetsFor(s, e.prNumber, e.headSha) !== undefined,
  });
  const change = readinessChange(e, readiness, at);
  return change ? [change] : [];
};
