import type { DecideContext } from '../commands/types';
import { requireEntry, requireQueue } from '../commands/guards';
import { DomainError } from '../errors';
import { isTerminal, type QueueEvent } from '../events';
import { readinessChange, readinessOf } from '../readiness';
import { targetsFor, type Entry, type QueueState } from '../state';
import type {
  CancelForHostChange,
  CancelTestRun,
  CompleteTestRun,
  EngineCommand,
  FailPr,
  MarkMerged,
  PassBySuccessor,
  RefreshReadiness,
  ReportTestStatus,
  RestartTests,
  StartTestRun,
} from './commands';
import { currentRun, requiredOutcome } from './runs';

/** Pure, like the API's decide: the engine's commands against the queue's state. */
export const decideEngine = (s: QueueState, c: EngineCommand, ctx: DecideContext): QueueEvent[] => {
  requireQueue(s);
  switch (c.type) {
    case 'StartTestRun':
      return startTestRun(s, c, ctx.now);
    case 'ReportTestStatus':
      return reportTestStatus(s, c, ctx.now);
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
  }
};

const stale = (message: string): DomainError => new DomainError('PR_NOT_IN_ACTIVE_STATE', message);

const startTestRun = (s: QueueState, c: StartTestRun, at: string): QueueEvent[] => {
  if (s.runs.has(c.testRunId)) return [];
  if (c.prNumbers.length === 0) throw new DomainError('INVALID_ARGUMENT', 'a test run tests at least one PR');
  for (const n of c.prNumbers) {
    const e = requireEntry(s, n);
    if (e.state !== 'pending') throw stale(`PR #${n} is ${e.state}; only a pending PR starts testing`);
  }
  for (const n of c.dependentPrs) {
    const e = requireEntry(s, n);
    if (isTerminal(e.state) || e.state === 'not_ready') throw stale(`PR #${n} ahead is ${e.state}; it cannot be stacked under a run`);
  }
  const { type: _type, ...data } = c;
  return [
    { type: 'TestRunStarted', data: { ...data, prNumbers: [...c.prNumbers], dependentPrs: [...c.dependentPrs], bisection: false, at } },
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
  const data = { testRunId: c.testRunId, context: c.context, state: c.state, ...(c.url !== undefined ? { url: c.url } : {}), at };
  return [{ type: 'TestRunStatusReported', data }];
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
    if (requiredOutcome(run).kind !== 'passed') throw new DomainError('INVALID_ARGUMENT', `test run ${testRunId} has not seen every required status succeed`);
    return [
      { type: 'TestRunSucceeded', data: { testRunId, at } },
      ...prs.map((prNumber): QueueEvent => ({ type: 'PrTestsPassed', data: { prNumber, testRunId, reason: 'TEST_RUN_PASSED', at } })),
    ];
  }
  if (c.outcome === 'failed') {
    const failedContexts = [...c.failedContexts];
    return [
      { type: 'TestRunFailed', data: { testRunId, reason: c.reason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts, at } },
      ...prs.map((prNumber): QueueEvent => ({ type: 'PrPendingFailure', data: { prNumber, testRunId, failedContexts, at } })),
    ];
  }
  const minutes = s.settings.testingTimeoutMinutes;
  return [
    { type: 'TestRunTimedOut', data: { testRunId, at } },
    ...prs.map(
      (prNumber): QueueEvent => ({
        type: 'PrFailed',
        data: { prNumber, reason: 'TEST_RUN_TIMEOUT', detail: `the test run did not finish within ${minutes} minute(s)`, testRunId, at },
      }),
    ),
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
  if (e.state !== 'testing' && e.state !== 'pending_failure') throw stale(`PR #${c.prNumber} is ${e.state}; only a PR testing or pending failure can pass by a successor`);
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
    { type: 'PrMerged', data: { prNumber: c.prNumber, mergeSha: c.mergeSha, ...(c.testRunId !== undefined ? { testRunId: c.testRunId } : {}), reason: c.reason, at } },
  ];
};

const failPr = (s: QueueState, c: FailPr, at: string): QueueEvent[] => {
  const e = requireEntry(s, c.prNumber);
  if (isTerminal(e.state)) return [];
  const data = { prNumber: c.prNumber, reason: c.reason, detail: c.detail, ...(c.testRunId !== undefined ? { testRunId: c.testRunId } : {}), at };
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
  if (!RESTARTABLE.has(e.state)) return [];
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
