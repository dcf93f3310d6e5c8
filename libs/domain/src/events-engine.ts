import type { NotCountedWhy } from './status-reporters';
/**
 * Events of a PR's life after admission: test runs, their statuses and outcomes, merges and
 * failures. The merge engine records them; metrics, audit and the read models consume them. Reason
 * vocabulary: Trunk's, upper case.
 */
interface Ev<T extends string, D> {
  type: T;
  data: D & { at: string };
}

export type RequiredStatusesSource = 'trunk_config' | 'repo_provider_branch_protection' | 'merge_instance';
export type CommitStatusState = 'pending' | 'success' | 'failure' | 'error';

export type TestRunStarted = Ev<
  'TestRunStarted',
  {
    testRunId: string;
    testBranch: string;
    testBranchSha: string;
    /** Target branch head the test branch was built on. */
    baseSha: string;
    /** PRs this run tests (several when batching); each also gets a PrTestingStarted in the same append. */
    prNumbers: number[];
    /** PRs ahead merged into the test branch to form the predicted base; this run does not test them. */
    dependentPrs: number[];
    requiredStatuses: string[];
    requiredStatusesSource: RequiredStatusesSource;
    /** A run that splits a failed batch; it counts against bisectionConcurrency, not concurrency. */
    bisection: boolean;
    /** For a bisection run: the failed run whose PRs it splits (its sibling half has the same parent). */
    bisectionOf?: string;
    /** Tree of `baseSha`; with `steps`, what lets the engine tell a merge already done from a push by someone else. */
    baseTree?: string;
    /** Commit and tree after each PR of the stack (dependents first): merging PR i moves the target to `steps[i]`'s tree. */
    steps?: TestRunStep[];
    /** A re-run of a failed run on the same commit before anyone is blamed (docs/engine.md, Flakes): which one, and why. */
    retry?: FlakeRetry;
    /**
     * Tested PRs that change the gating configuration files: the run was gated by its base's files,
     * not by theirs (gatingConfigCommit, docs/decisions.md D200). Absent when none does, and on runs
     * recorded before it was kept.
     */
    configNotUsed?: ConfigNotUsed[];
    /**
     * The contexts the local CI runs for this run, per its config commit: their statuses count only
     * from the local CI (ReporterPolicy). Absent when it runs none, and on runs recorded before it
     * was kept: those count any reporter's status for every context, as they did.
     */
    localChecks?: string[];
  }
>;

/** A PR whose changes to these configuration files (`.railyard.yml`, `.trunk/trunk.yaml`) gate nothing until it merges. */
export interface ConfigNotUsed {
  prNumber: number;
  files: string[];
}

/**
 * Why a failure may be a flake, so the run is re-run before anyone is blamed:
 * - `FLAKY_TESTS`: the JUnit results of the failed run show only tests classified flaky (or quarantined) failing;
 * - `NO_TEST_RESULTS`: no JUnit results name a failing test, so nothing says the failure is real;
 * - `INFERRED_FAILURE`: bisection convicted these PRs without a failing run of their own, from a batch failure that may have been a flake.
 */
export type FlakeRetryCause = 'FLAKY_TESTS' | 'NO_TEST_RESULTS' | 'INFERRED_FAILURE';
export interface FlakeRetry {
  /** The failed (or, for an inference, cancelled) run this one re-runs on the same commit. */
  of: string;
  /** 1 for the first re-run of a failure, up to the queue's flakeRetries. */
  attempt: number;
  cause: FlakeRetryCause;
  /** The required checks that failed and are re-run (empty for an inference: nothing ran). */
  contexts: string[];
  /** What the history shows: the failing tests and their health, or what was inferred. */
  detail: string;
}
export interface TestRunStep {
  prNumber: number;
  sha: string;
  tree: string;
}
/**
 * Why CI could not give a check's verdict, through no fault of the code (a check that could not
 * start, a lost checkout, a runner crash): an `error` status that is no failure (docs/engine.md,
 * "Infrastructure errors").
 */
export interface InfrastructureErrorReport {
  code: string;
  message: string;
}
/** `reporter`: who reported it (status-reporters.ts); absent on events recorded before it was kept, which counted whoever it was. */
export type TestRunStatusReported = Ev<
  'TestRunStatusReported',
  {
    testRunId: string;
    context: string;
    state: CommitStatusState;
    url?: string;
    infrastructureError?: InfrastructureErrorReport;
    reporter?: string;
  }
>;
/**
 * A status on the run's commit from someone the rule does not let report its context (ReporterPolicy):
 * kept so the PR's explanation can say so, never counted. `reporter` absent: unknown.
 */
export type TestRunStatusNotCounted = Ev<
  'TestRunStatusNotCounted',
  { testRunId: string; context: string; state: CommitStatusState; url?: string; reporter?: string; why: NotCountedWhy }
>;
/** The engine asked CI to run checks again that ended in an infrastructure error; `attempt` counts the retries of the run. */
export type TestRunInfrastructureRetried = Ev<
  'TestRunInfrastructureRetried',
  { testRunId: string; contexts: string[]; code: string; attempt: number }
>;
/** Every infrastructure retry of the run was used up: the run waits for an operator; its PRs are not failed. */
export type TestRunStuck = Ev<
  'TestRunStuck',
  { testRunId: string; reason: 'INFRASTRUCTURE_RETRIES_EXHAUSTED'; code: string; detail: string }
>;
/**
 * `quarantined`: required checks that failed only through tests the test-health service has
 * quarantined; the run does not fail for them.
 */
export type TestRunSucceeded = Ev<'TestRunSucceeded', { testRunId: string; quarantined?: QuarantinedFailure[] }>;
export interface QuarantinedFailure {
  context: string;
  /** Names of the quarantined tests that failed. */
  tests: string[];
}
export type TestRunFailed = Ev<
  'TestRunFailed',
  {
    testRunId: string;
    reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' | 'START_TEST_RUN_NO_REQUIRED_STATUSES' | 'START_TEST_RUN_CONFIG_PARSING_FAILURE';
    failedContexts: string[];
    /**
     * What the run's JUnit results said of the failure (docs/engine.md, Flakes): `genuine` when a
     * failing test is healthy, broken or new (blamed at once, never re-run), `flaky` when every
     * failing test is classified flaky, `unknown` without results. Absent in older events: unknown.
     */
    judgement?: FailureJudgement;
    /** The failing tests behind the judgement, as the history shows them. */
    judgementDetail?: string;
  }
>;
export type FailureJudgement = 'genuine' | 'flaky' | 'unknown';
export type TestRunTimedOut = Ev<'TestRunTimedOut', { testRunId: string }>;
export type TestRunCancelled = Ev<'TestRunCancelled', { testRunId: string; reason: string }>;

/** `FLAKE_RETRIED`: the run failed, a re-run of the same commit passed (docs/engine.md, Flakes). */
export type PassReason = 'TEST_RUN_PASSED' | 'SUCCESSOR_TEST_RUN_PASSED' | 'PASSED_BY_OPTIMIZATION' | 'FLAKE_RETRIED';
export type MergeReason = 'MERGE_GRAPH_MERGE' | 'MERGE_GRAPH_DIRECT_MERGE' | 'MANUAL_MERGE';
export type FailReason =
  | 'TEST_RUN_REQUIRED_STATUS_FAILED'
  | 'TEST_RUN_TIMEOUT'
  | 'TEST_RUN_FAILED_BY_OPTIMIZATION'
  | 'START_TEST_RUN_MERGE_CONFLICT'
  | 'START_TEST_RUN_NO_REQUIRED_STATUSES'
  | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'
  | 'PR_UPDATED_AT_MERGE_TIME'
  | 'GITHUB_API_MERGE_PR_FAILED';

/** One per tested PR, beside TestRunStarted: every consumer moves entry states one PR per event. */
export type PrTestingStarted = Ev<'PrTestingStarted', { prNumber: number; testRunId: string }>;
export type PrTestsPassed = Ev<'PrTestsPassed', { prNumber: number; testRunId: string; reason: PassReason }>;
export type PrPendingFailure = Ev<'PrPendingFailure', { prNumber: number; testRunId: string; failedContexts: string[] }>;
/** `ontoSha`: the target's head the merge was made on, when the engine knows it; it lets parallel mode tell its own merges from foreign pushes. */
export type PrMerged = Ev<'PrMerged', { prNumber: number; mergeSha: string; ontoSha?: string; testRunId?: string; reason: MergeReason }>;
/** `detail` says what to fix, e.g. which PR or base commit it conflicts with. */
export type PrFailed = Ev<'PrFailed', { prNumber: number; reason: FailReason; detail: string; testRunId?: string }>;

/**
 * What keeps the engine from driving the queue, as the engine saw it: the repository is gone from the
 * host, or the queue's branch is not a name the host can serve. Recorded when it starts and when it
 * changes; `QueueHostProblemCleared` when a pass succeeds again. Read models show it (docs/engine.md).
 */
export const HOST_PROBLEM_CODES = ['REPOSITORY_NOT_FOUND', 'INVALID_TARGET_BRANCH'] as const;
export type HostProblemCode = (typeof HOST_PROBLEM_CODES)[number];
export type QueueHostProblemReported = Ev<'QueueHostProblemReported', { code: HostProblemCode; detail: string }>;
export type QueueHostProblemCleared = Ev<'QueueHostProblemCleared', object>;

export type EngineEvent =
  | QueueHostProblemReported
  | QueueHostProblemCleared
  | TestRunStarted
  | TestRunStatusReported
  | TestRunStatusNotCounted
  | TestRunInfrastructureRetried
  | TestRunStuck
  | TestRunSucceeded
  | TestRunFailed
  | TestRunTimedOut
  | TestRunCancelled
  | PrTestingStarted
  | PrTestsPassed
  | PrPendingFailure
  | PrMerged
  | PrFailed;
