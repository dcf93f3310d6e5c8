import type { CancelReason, Mergeability, RestartReason } from '../events';
import type {
  CommitStatusState,
  ConfigNotUsed,
  FailReason,
  FailureJudgement,
  FlakeRetryCause,
  QuarantinedFailure,
  HostProblemCode,
  InfrastructureErrorReport,
  MergeReason,
  RequiredStatusesSource,
  TestRunFailed,
  TestRunStep,
} from '../events-engine';
import type { NotCountedWhy } from '../status-reporters';

/**
 * What the merge engine records. Each is decided against the queue's state like an API command; a
 * command whose outcome is already recorded decides nothing, so the engine can re-issue it after a
 * crash without doubling anything.
 */
export interface StartTestRun {
  type: 'StartTestRun';
  testRunId: string;
  testBranch: string;
  testBranchSha: string;
  baseSha: string;
  baseTree: string;
  steps: TestRunStep[];
  prNumbers: number[];
  dependentPrs: number[];
  requiredStatuses: string[];
  requiredStatusesSource: RequiredStatusesSource;
  /** Tested PRs whose changes to the gating configuration files this run does not use. */
  configNotUsed?: ConfigNotUsed[];
  /** The contexts the local CI runs for this run (per its config commit): only it may report them. */
  localChecks?: string[];
}
export interface ReportTestStatus {
  type: 'ReportTestStatus';
  testRunId: string;
  context: string;
  state: CommitStatusState;
  url?: string;
  /** Set when the status is an infrastructure error: no verdict on the code. */
  infrastructureError?: InfrastructureErrorReport;
  /** Who reported it; the planner passes only statuses that count (gatingReports). */
  reporter?: string;
}
/** A status on a run's commit that does not count (gatingReports), kept for the PR's explanation. */
export interface ReportStatusNotCounted {
  type: 'ReportStatusNotCounted';
  testRunId: string;
  context: string;
  state: CommitStatusState;
  url?: string;
  reporter?: string;
  why: NotCountedWhy;
}
/**
 * `passed` with `quarantined`: the named required checks failed only through quarantined tests
 * (the engine's test-health facts say so); every other required check passed.
 */
export type CompleteTestRun =
  | { type: 'CompleteTestRun'; testRunId: string; outcome: 'passed'; quarantined?: QuarantinedFailure[] }
  | {
      type: 'CompleteTestRun';
      testRunId: string;
      outcome: 'failed';
      failedContexts: string[];
      reason?: TestRunFailed['data']['reason'];
      judgement?: FailureJudgement;
      judgementDetail?: string;
    }
  | { type: 'CompleteTestRun'; testRunId: string; outcome: 'timed_out' };
export interface CancelTestRun {
  type: 'CancelTestRun';
  testRunId: string;
  reason: string;
}
/** Optimistic merge: a run further back that stacked this PR passed, which proves this PR too. */
export interface PassBySuccessor {
  type: 'PassBySuccessor';
  prNumber: number;
  testRunId: string;
}
export interface MarkMerged {
  type: 'MarkMerged';
  prNumber: number;
  mergeSha: string;
  /** The target's head the merge was made on, when known. */
  ontoSha?: string;
  testRunId?: string;
  reason: MergeReason;
}
export interface FailPr {
  type: 'FailPr';
  prNumber: number;
  reason: FailReason;
  detail: string;
  testRunId?: string;
}
export type HostCancelReason = Extract<CancelReason, 'PR_CLOSED' | 'PR_PUSHED_TO' | 'PR_BASE_BRANCH_CHANGED'>;
export interface CancelForHostChange {
  type: 'CancelForHostChange';
  prNumber: number;
  reason: HostCancelReason;
}
export interface RestartTests {
  type: 'RestartTests';
  prNumber: number;
  reason: RestartReason;
}
/**
 * bisection_skip_redundant_tests: the failed run `parent` was split in two halves; `provenBy` (one
 * half) passed, so the culprit is in the other half, `testRunId`, which need not run to the end. Its
 * run is cancelled and its PRs are pending failure on it, as if it had failed.
 */
export interface FailByOptimization {
  type: 'FailByOptimization';
  testRunId: string;
  provenBy: string;
}
/**
 * Re-runs the failed (or bisection-cancelled) run `testRunId` on the same commit, before its PRs are
 * blamed or its batch is split, because the failure may be a flake (docs/engine.md, Flakes). Its PRs
 * pending failure on it go back to testing on the new run; at most `flakeRetries` re-runs per failure.
 */
export interface RetryTestRun {
  type: 'RetryTestRun';
  testRunId: string;
  cause: FlakeRetryCause;
  detail: string;
}
/** The runs in flight when the mode was asked to change have all left: the new mode takes effect. */
export interface CompleteModeSwitch {
  type: 'CompleteModeSwitch';
}
/** The host's current answer for a waiting PR: admits it once it became mergeable (or retargeted to the queue's branch). */
export interface RefreshReadiness {
  type: 'RefreshReadiness';
  prNumber: number;
  headSha: string;
  baseBranch: string;
  mergeability: Mergeability;
}

/** The engine cannot drive the queue for a reason the queue should show (`problem`), or no longer (null). */
export interface ReportHostProblem {
  type: 'ReportHostProblem';
  problem: { code: HostProblemCode; detail: string } | null;
}

/** Run again the checks of a run that ended in an infrastructure error (the rule: `infrastructureRetries` in phases/infrastructure.ts). */
export interface RetryInfrastructureError {
  type: 'RetryInfrastructureError';
  testRunId: string;
  contexts: string[];
  code: string;
}
/** The run's infrastructure retries are used up: say so, once; nothing fails. */
export interface ReportRunStuck {
  type: 'ReportRunStuck';
  testRunId: string;
  code: string;
  detail: string;
}

export type EngineCommand =
  | ReportHostProblem
  | RetryInfrastructureError
  | ReportRunStuck
  | StartTestRun
  | ReportTestStatus
  | ReportStatusNotCounted
  | CompleteTestRun
  | CancelTestRun
  | PassBySuccessor
  | MarkMerged
  | FailPr
  | CancelForHostChange
  | RestartTests
  | RefreshReadiness
  | FailByOptimization
  | RetryTestRun
  | CompleteModeSwitch;
