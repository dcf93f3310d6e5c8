import { z } from 'zod';
import {
  DIRECT_MERGE_MODES,
  HOST_PROBLEM_CODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PR_STATES,
  PRIORITY_NAMES,
  QUEUE_MODES,
  QUEUE_STATES,
} from '@railyard/domain';
import { explanationFields } from './responses-explain';

/**
 * What the queue and PR endpoints answer, as zod schemas: the OpenAPI document is generated from
 * them and the contract tests validate real answers against it (docs/api.md).
 */

const time = z.iso.datetime({ offset: true }).describe('ISO 8601 time');
const count = z.number().int().min(0);

/** The Queue object of the spec: every field, numbers typed number, enums lower snake case. */
export const queueResponseSchema = z.object({
  state: z.enum(QUEUE_STATES),
  branch: z.string(),
  mode: z.enum(QUEUE_MODES),
  concurrency: count,
  bisectionConcurrency: count,
  testingTimeoutMinutes: count,
  pendingFailureDepth: count,
  canOptimisticallyMerge: z.boolean(),
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: count,
  batchingMinSize: count,
  // Railyard's additions (docs/api.md, "Batch size"): absent where not set or not batching.
  batchingMaxSize: count.optional().describe('the largest batch; above batchingMinSize the size follows the failure rate'),
  batchSize: count.optional().describe('while batching: the batch size the queue uses now'),
  failureRate: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("moving estimate of the share of the queue's PRs that fail (about the last 50 outcomes); absent before the first"),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  createPrsForTestingBranches: z.boolean(),
  statusCheckEnabled: z.boolean(),
  directMergeMode: z.enum(DIRECT_MERGE_MODES),
  optimizationMode: z.enum(OPTIMIZATION_MODES),
  mergeMethod: z.enum(MERGE_METHODS),
  // Not in the spec's Queue object; absent for queues created before the setting existed (they use 1).
  flakeRetries: count.optional().describe('re-runs of a failed run on the same commit before blaming, when it may be a flake'),
  // Railyard's addition (docs/api.md); optional so that answers stored before it still parse.
  flakeRetryConcurrency: count.optional().describe('re-runs of lone failures that go on beside the queue at once, outside concurrency'),
  // Railyard's addition (docs/api.md, D322); optional so that answers stored before it still parse.
  unknownFailuresHoldPlace: z.boolean().optional().describe('a lone failure no test results name keeps its place while re-run'),
  requiredStatuses: z.array(z.string()),
  // Railyard's addition (docs/api.md, "Who may report a status"): absent when the queue names nobody.
  statusReporters: z
    .record(z.string(), z.array(z.string()))
    .optional()
    .describe('per commit-status context, the tokens (or reporter ids) whose statuses count for it'),
  // Carried in the stored settings of queues created over HTTP; not in the spec's Queue object.
  repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }).optional().describe("the queue's repository"),
  targetBranch: z.string().optional().describe("the queue's branch, as given to createQueue"),
  // Railyard's addition (docs/api.md): present only while the engine cannot drive the queue.
  hostProblem: z
    .object({
      code: z.enum(HOST_PROBLEM_CODES).describe('REPOSITORY_NOT_FOUND or INVALID_TARGET_BRANCH'),
      detail: z.string().describe('what the engine found'),
      since: time.describe('when the problem was first reported'),
    })
    .optional()
    .describe('present while the merge engine reports that it cannot reach the repository or branch; absent otherwise'),
});
export type QueueResponse = z.infer<typeof queueResponseSchema>;

/** createQueue and updateQueue: the Queue, again under `queue`, and the older spellings Trunk's Terraform client reads. */
export const queueEnvelopeSchema = queueResponseSchema.extend({
  testingTimeoutMins: count.describe('older spelling of testingTimeoutMinutes'),
  isBatching: z.boolean().describe('older spelling of batch'),
  batchingMaxWaitTimeMins: count.describe('older spelling of batchingMaxWaitTimeMinutes'),
  queue: queueResponseSchema,
});

/** A PR as each of Trunk's PR answers shows it: getSubmittedPullRequest, getQueue's and listPullRequests' items. */
export const pullRequestSummarySchema = z.object({
  id: z.string(),
  state: z.enum(PR_STATES),
  stateChangedAt: time,
  priorityValue: z.number().int().min(0).max(255),
  priorityName: z.enum(PRIORITY_NAMES),
  usedDefaultPriorityName: z.enum(PRIORITY_NAMES).optional().describe('present only when the default priority was applied'),
  skipTheLine: z.boolean(),
  noBatch: z.boolean(),
  prNumber: z.number().int().min(1),
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
});
export type PullRequestSummary = z.infer<typeof pullRequestSummarySchema>;

/** One of getQueue's PRs: Trunk's fields, then Railyard's earlier names (kept for its CLI and scripts) and the explanation. */
export const enqueuedPullRequestSchema = pullRequestSummarySchema.extend({
  number: z.number().int().min(1).describe('Railyard’s earlier name of prNumber'),
  title: z.string().describe('Railyard’s earlier name of prTitle'),
  sha: z.string().describe('Railyard’s earlier name of prSha'),
  author: z.string().describe('Railyard’s earlier name of prAuthor'),
  priority: z.number().int().min(0).max(255).describe('Railyard’s earlier name of priorityValue'),
  ...explanationFields,
});
export type EnqueuedPullRequest = z.infer<typeof enqueuedPullRequestSchema>;

export const getQueueResponseSchema = queueEnvelopeSchema.extend({
  enqueuedPullRequests: z.array(enqueuedPullRequestSchema).describe('every PR not yet merged, failed or cancelled, in queue order'),
});
export type GetQueueResponse = QueueResponse & { enqueuedPullRequests: EnqueuedPullRequest[] };

export const submittedPullRequestSchema = pullRequestSummarySchema.extend({
  readiness: z.object({
    requiresImpactedTargets: z.boolean(),
    doesBaseBranchMatch: z.boolean(),
    hasImpactedTargets: z.boolean(),
    gitHubMergeability: z.enum(['unspecified', 'in_progress', 'mergeable', 'not_mergeable']),
  }),
  forceEnqueued: z.boolean(),
  isCurrentlySubmittedToQueue: z.boolean(),
  ...explanationFields,
});
export type SubmittedPullRequestResponse = z.infer<typeof submittedPullRequestSchema>;

export const listPullRequestsResponseSchema = z.object({
  pullRequests: z.array(pullRequestSummarySchema).describe('in PR number order'),
  nextCursor: z.uuid().optional().describe('for the next page; absent on the last one'),
});

export const setImpactedTargetsResponseSchema = z.object({
  prNumber: z.number().int().min(1),
  headSha: z.string(),
  impactsAll: z.boolean(),
  count,
  digest: z.string().describe('SHA-256 of the stored, sorted list'),
});

export const emptyResponseSchema = z.object({}).strict();

/** Every error: a stable code, a sentence, and for validation errors each invalid field. */
export const errorResponseSchema = z.object({
  error: z.object({
    code: z.string().describe('stable, upper snake case: see docs/api.md'),
    message: z.string(),
    fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
