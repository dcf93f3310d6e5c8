import type {
  HostProblemCode,
  PrState,
  QueueRunState,
  QueueSettings,
  Readiness,
  RepoRef,
  PriorityName,
  QueueMode,
  StateReason,
  StatusReporters,
} from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type { TestRunReadModel } from '../testruns/port';
import type { PrListPage, PrListQuery } from './projection/listing';

/** The queue as getQueue shows it, without its PR list. */
export interface QueueView {
  queueId: string;
  repo: RepoRef;
  branch: string;
  state: QueueRunState;
  pendingMode?: QueueMode;
  settings: QueueSettings;
  requiredStatuses: string[];
  /** Per context, who may report it; absent when the queue names nobody. */
  statusReporters?: StatusReporters;
  createdAt: string;
  updatedAt: string;
  /** While the engine reports it cannot drive the queue (QueueHostProblemReported until QueueHostProblemCleared). */
  hostProblem?: QueueHostProblem;
  /** The queue's moving failure-rate estimate (domain engine/batch-size.ts); absent before its first merge or failure. */
  failureRate?: number;
}

export interface QueueHostProblem {
  code: HostProblemCode;
  detail: string;
  /** When the problem was first reported. */
  since: string;
}

/** A PR's entry as getSubmittedPullRequest shows it (terminal entries stay readable). */
export interface PrView {
  queueId: string;
  id: string;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  state: PrState;
  stateChangedAt: string;
  /** The reason code of the event that moved it to its state (absent in documents folded before it was kept). */
  stateReason?: StateReason;
  priorityValue: number;
  priorityName: PriorityName;
  usedDefaultPriorityName?: PriorityName;
  skipTheLine: boolean;
  forceEnqueued: boolean;
  isCurrentlySubmittedToQueue: boolean;
  noBatch: boolean;
  readiness: Readiness;
  submittedAt: string;
  /** Submission order, for FIFO within a priority level. */
  seq: number;
  /** The last run that tested or decided it: getTestRun(queueId, lastTestRunId) has its checks and logs. */
  lastTestRunId?: string;
}

export interface ReadModelStore extends TestRunReadModel {
  /**
   * Folds the events into the models and moves the checkpoint in one atomic step. Events at or
   * below the checkpoint are skipped, so replaying a batch changes nothing.
   */
  apply(events: RecordedEvent[]): Promise<void>;
  /** Position of the last event applied, or null when nothing was. */
  checkpoint(): Promise<bigint | null>;
  /** Resolves true once the checkpoint reaches `position`, false after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
  getQueue(queueId: string): Promise<QueueView | null>;
  /** Non-terminal PRs of the queue, in queue order (priority, then submission). */
  listActivePrs(queueId: string): Promise<PrView[]>;
  getPr(queueId: string, prNumber: number): Promise<PrView | null>;
  /** One page of every PR of the queue (active or not), in PR number order (listPullRequests; projection/listing.ts). */
  listPrs(queueId: string, query: PrListQuery): Promise<PrListPage>;
  /**
   * The getQueue answer as JSON text, byte for byte what the API sends (docs/api.md), or null when
   * the queue does not exist. The Redis store keeps the answer the first read after a batch builds,
   * so later reads are one GET and a batch never rebuilds it (docs/decisions.md D253).
   */
  getQueueAnswer(queueId: string): Promise<string | null>;
  /**
   * The getSubmittedPullRequest answer (the PR's view and its explanation) as JSON text, or null when
   * getPr is null. Built on read from the PR's document and its place in queue order, never by listing the queue.
   */
  getPrAnswer(queueId: string, prNumber: number): Promise<string | null>;
  /** Queues (not deleted) the engine currently reports a host problem for, for /readyz. */
  listHostProblems(): Promise<QueueView[]>;
  /** Forgets every model and the checkpoint, ready for a rebuild from position 0. */
  reset(): Promise<void>;
  close(): Promise<void>;
}
