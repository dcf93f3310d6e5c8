import type { PrState, PriorityName, QueueRunState, QueueSettings } from '@railyard/domain';

/**
 * The Queue object of the spec: every field, numbers typed number, enums lower snake case. The
 * settings are exactly the domain's QueueSettings; the spec adds the run state, branch and list.
 */
export type QueueResponse = QueueSettings & {
  state: QueueRunState;
  branch: string;
  requiredStatuses: string[];
};

export interface EnqueuedPullRequest {
  number: number;
  title: string;
  sha: string;
  author: string;
  state: PrState;
  priority: number;
  priorityName: PriorityName;
  stateChangedAt: string;
}

export interface GetQueueResponse extends QueueResponse {
  enqueuedPullRequests: EnqueuedPullRequest[];
}

export interface SubmittedPullRequestResponse {
  id: string;
  state: PrState;
  readiness: { requiresImpactedTargets: boolean; doesBaseBranchMatch: boolean; hasImpactedTargets: boolean; gitHubMergeability: string };
  stateChangedAt: string;
  priorityValue: number;
  priorityName: PriorityName;
  usedDefaultPriorityName?: PriorityName;
  skipTheLine: boolean;
  forceEnqueued: boolean;
  isCurrentlySubmittedToQueue: boolean;
  noBatch: boolean;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
}

export interface ErrorResponse {
  error: { code: string; message: string; fields?: { field: string; message: string }[] };
}
