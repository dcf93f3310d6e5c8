import type { QueueSettings, RequestableQueueState } from '../config';
import type { Mergeability, StatusReporters, TargetsRef } from '../events';
import type { RepoRef } from '../ids';
import type { PriorityName } from '../priority';

/** What a command handler gives `decide`: the clock and the id source, so decide stays pure. */
export interface DecideContext {
  now: string;
  newId: () => string;
}

/** The Git host's answer about a PR, fetched by the handler before deciding. */
export interface PullRequestSnapshot {
  number: number;
  title: string;
  author: string;
  headSha: string;
  baseBranch: string;
  /** The branch the PR comes from, when the host names one (a PR can be read by it: getSubmittedPullRequest). */
  headBranch?: string;
  state: 'open' | 'closed' | 'merged';
  mergeability: Mergeability;
}

export type QueueSettingsInput = Partial<QueueSettings>;

export interface CreateQueue {
  type: 'CreateQueue';
  queueId: string;
  repo: RepoRef;
  branch: string;
  settings?: QueueSettingsInput;
  state?: RequestableQueueState;
  requiredStatuses?: string[];
  statusReporters?: StatusReporters;
}
export interface UpdateQueue {
  type: 'UpdateQueue';
  settings?: QueueSettingsInput;
  state?: RequestableQueueState;
  requiredStatuses?: string[];
  deleteRequiredStatuses?: boolean;
  /** Replaces the queue's map; `{}` clears it. */
  statusReporters?: StatusReporters;
}
export interface DeleteQueue {
  type: 'DeleteQueue';
}
export interface SubmitPullRequest {
  type: 'SubmitPullRequest';
  pr: PullRequestSnapshot;
  priority?: number | PriorityName;
  noBatch?: boolean;
}
export interface CancelPullRequest {
  type: 'CancelPullRequest';
  prNumber: number;
}
export interface RestartTestsOnPullRequest {
  type: 'RestartTestsOnPullRequest';
  prNumber: number;
}
export interface SetImpactedTargets {
  type: 'SetImpactedTargets';
  prNumber: number;
  headSha: string;
  targets: TargetsRef;
}

export type QueueCommand =
  CreateQueue | UpdateQueue | DeleteQueue | SubmitPullRequest | CancelPullRequest | RestartTestsOnPullRequest | SetImpactedTargets;
