import type { QueueRunState, QueueSettings, RequestableQueueState, QueueMode } from './config';
import type { RepoRef } from './ids';
import type { PriorityName } from './priority';
import type { EngineEvent } from './events-engine';

export const PR_STATES = ['not_ready', 'pending', 'testing', 'tests_passed', 'merged', 'failed', 'cancelled', 'pending_failure'] as const;
export type PrState = (typeof PR_STATES)[number];
export const TERMINAL_PR_STATES: readonly PrState[] = ['merged', 'failed', 'cancelled'];
export const isTerminal = (s: PrState): boolean => TERMINAL_PR_STATES.includes(s);

/** The Git host's view of whether the PR could merge into its base (GitHub's wording, as v1 reported it). */
export type Mergeability = 'unspecified' | 'in_progress' | 'mergeable' | 'not_mergeable';

export interface Readiness {
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  hasImpactedTargets: boolean;
  mergeability: Mergeability;
}

/** A content-addressed impacted-target list: the list itself lives in a blob store, events carry the digest. */
export interface TargetsRef {
  digest: string;
  count: number;
  /** The bare `ALL`: impacts every target. */
  all: boolean;
}

// Reason vocabulary follows Trunk's, in upper case as the webhook payloads carry it.
export type SubmitReason = 'API_REQUESTED' | 'USER_REQUESTED';
export type CancelReason =
  'API_REQUESTED' | 'USER_REQUESTED' | 'PR_CLOSED' | 'PR_PUSHED_TO' | 'PR_BASE_BRANCH_CHANGED' | 'PR_MERGED_INTO_OTHER_BRANCH';
/** READINESS_UPDATED: a signal changed but the entry stays where it was (no admission or eviction). */
export type ReadinessReason = 'MERGE_ITEM_NOW_READY' | 'MERGE_ITEM_NO_LONGER_READY' | 'READINESS_UPDATED';
export type RestartReason =
  | 'TESTS_RESTARTED_BY_API_REQUEST'
  | 'TESTS_RESTARTED_BY_USER'
  | 'MANUAL_PUSH_TO_TARGET_BRANCH'
  | 'PREREQUISITE_MERGE_ITEM_FAILED'
  | 'PREREQUISITE_MERGE_ITEM_CANCELLED'
  | 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED'
  | 'SKIP_THE_LINE_INTERRUPTED'
  | 'BISECTION_REQUIRED'
  | 'BISECTION_TEST_RUN_PASSED'
  /** Its failed run is re-run on the same commit because the failure may be a flake (TestRunStarted.retry says why). */
  | 'FLAKE_RETRY'
  /** Its re-run beside the queue passed after PRs behind it went on without it: it is tested again behind them. */
  | 'FLAKE_RETRY_PASSED';

interface Ev<T extends string, D> {
  type: T;
  data: D & { at: string };
}

/** `statusReporters`: per context, who may report it (ReporterPolicy); absent or empty: nobody is named. */
export type QueueCreated = Ev<
  'QueueCreated',
  {
    queueId: string;
    repo: RepoRef;
    branch: string;
    settings: QueueSettings;
    requiredStatuses: string[];
    state: RequestableQueueState;
    statusReporters?: StatusReporters;
  }
>;
/** `requiredStatuses: null` clears the manual list; absent leaves it alone. `statusReporters` replaces the map (`{}` clears it). */
export type QueueConfigUpdated = Ev<
  'QueueConfigUpdated',
  { changes: Partial<QueueSettings>; requiredStatuses?: string[] | null; statusReporters?: StatusReporters }
>;
/** Per commit-status context, the token names (or reporter ids) that may report it. */
export type StatusReporters = Record<string, string[]>;
/**
 * `pendingMode` is set when entering switching_modes: the mode the queue moves to once its runs in
 * flight merged. `resumeState` is the state it returns to then, when it is not `from` (a state asked
 * for together with the mode).
 */
export type QueueStateChanged = Ev<
  'QueueStateChanged',
  { from: QueueRunState; to: QueueRunState; pendingMode?: QueueMode; resumeState?: RequestableQueueState }
>;
export type QueueDeleted = Ev<'QueueDeleted', { reason?: string }>;

export interface PullRequestFacts {
  prNumber: number;
  title: string;
  headSha: string;
  author: string;
  baseBranch: string;
}

export type PrSubmitted = Ev<
  'PrSubmitted',
  PullRequestFacts & {
    /** The branch the PR came from, when the host named it; absent in events recorded before it was kept. */
    headBranch?: string;
    entryId: string;
    priorityValue: number;
    priorityName: PriorityName;
    usedDefaultPriorityName?: PriorityName;
    noBatch: boolean;
    readiness: Readiness;
    state: 'not_ready' | 'pending';
    reason: SubmitReason;
  }
>;
export type PrPriorityChanged = Ev<
  'PrPriorityChanged',
  { prNumber: number; priorityValue: number; priorityName: PriorityName; usedDefaultPriorityName?: PriorityName; noBatch: boolean }
>;
export type PrReadinessChanged = Ev<
  'PrReadinessChanged',
  { prNumber: number; readiness: Readiness; state: 'not_ready' | 'pending'; reason: ReadinessReason }
>;
export type ImpactedTargetsSet = Ev<'ImpactedTargetsSet', { prNumber: number; headSha: string } & TargetsRef>;
export type PrCancelled = Ev<'PrCancelled', { prNumber: number; reason: CancelReason }>;
export type TestsRestarted = Ev<'TestsRestarted', { prNumber: number; reason: RestartReason }>;

export type QueueEvent =
  | EngineEvent
  | QueueCreated
  | QueueConfigUpdated
  | QueueStateChanged
  | QueueDeleted
  | PrSubmitted
  | PrPriorityChanged
  | PrReadinessChanged
  | ImpactedTargetsSet
  | PrCancelled
  | TestsRestarted;

export type QueueEventType = QueueEvent['type'];
export const QUEUE_EVENT_SCHEMA_VERSION = 1;

/**
 * The entry state an event leaves its PR in, or undefined when it does not move one. Evolve and every
 * projection use this one function, so the read side can never disagree with the write side on state.
 */
export const entryStateAfter = (event: QueueEvent): { prNumber: number; state: PrState } | undefined => {
  switch (event.type) {
    case 'PrSubmitted':
    case 'PrReadinessChanged':
      return { prNumber: event.data.prNumber, state: event.data.state };
    case 'PrCancelled':
      return { prNumber: event.data.prNumber, state: 'cancelled' };
    case 'TestsRestarted':
      return { prNumber: event.data.prNumber, state: 'pending' };
    case 'PrTestingStarted':
      return { prNumber: event.data.prNumber, state: 'testing' };
    case 'PrTestsPassed':
      return { prNumber: event.data.prNumber, state: 'tests_passed' };
    case 'PrPendingFailure':
      return { prNumber: event.data.prNumber, state: 'pending_failure' };
    case 'PrMerged':
      return { prNumber: event.data.prNumber, state: 'merged' };
    case 'PrFailed':
      return { prNumber: event.data.prNumber, state: 'failed' };
    default:
      return undefined;
  }
};
