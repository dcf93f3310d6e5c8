import type { PrState, PriorityName, QueueRunState } from '@railyard/domain';

/** The Queue object of the spec: every field, numbers typed number, enums lower snake case. */
export interface QueueResponse {
  state: QueueRunState;
  branch: string;
  mode: 'single' | 'parallel';
  concurrency: number;
  bisectionConcurrency: number;
  testingTimeoutMinutes: number;
  pendingFailureDepth: number;
  canOptimisticallyMerge: boolean;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  createPrsForTestingBranches: boolean;
  statusCheckEnabled: boolean;
  requiredStatuses: string[];
  directMergeMode: 'off' | 'always';
  optimizationMode: 'off' | 'bisection_skip_redundant_tests';
  mergeMethod: 'merge_commit' | 'squash' | 'rebase';
}

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
