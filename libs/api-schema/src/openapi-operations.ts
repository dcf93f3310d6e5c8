import { DEFAULT_SETTINGS } from '@railyard/domain';
import type { OperationDoc } from './openapi';
import { createQueueRequest, deleteQueueRequest, getQueueRequest, updateQueueRequest } from './queue';
import { getSubmittedPullRequestRequest, prActionRequest, setImpactedTargetsRequest, submitPullRequestRequest } from './pull-requests';
import {
  emptyResponseSchema,
  getQueueResponseSchema,
  queueEnvelopeSchema,
  setImpactedTargetsResponseSchema,
  submittedPullRequestSchema,
} from './responses';

/** Examples shared by the operations below; each must be valid for its schema (Redocly checks). */
const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const KEY = { repo: REPO, targetBranch: 'main' };
const SETTINGS = { state: 'running', branch: 'main', ...DEFAULT_SETTINGS, concurrency: 2, requiredStatuses: ['build', 'test'] };
const ENVELOPE = { ...SETTINGS, testingTimeoutMins: 300, isBatching: false, batchingMaxWaitTimeMins: 5, queue: SETTINGS };
const PR = {
  id: '0f8c2b1e-6a4d-4c1e-9a57-2d1f0b8e3c11',
  state: 'testing',
  readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, gitHubMergeability: 'mergeable' },
  stateChangedAt: '2026-03-01T09:30:00.000Z',
  priorityValue: 100,
  priorityName: 'medium',
  usedDefaultPriorityName: 'medium',
  skipTheLine: false,
  forceEnqueued: false,
  isCurrentlySubmittedToQueue: true,
  noBatch: false,
  prNumber: 12,
  prTitle: 'Add the widget cache',
  prSha: '9c1f6e0b4a7d3e2f1c0b9a8d7e6f5a4b3c2d1e0f',
  prBaseBranch: 'main',
  prAuthor: 'ada',
  stateReason: { code: 'TEST_RUN_STARTED', message: 'testing on run 7d2e (branch railyard-merge/pr-12/7d2e)', testRunId: '7d2e' },
  waitingOn: [{ kind: 'required_statuses', message: 'required statuses missing on run 7d2e: test', checks: ['test'] }],
  lastTestRun: {
    id: '7d2e',
    status: 'testing',
    testBranch: 'railyard-merge/pr-12/7d2e',
    checks: [
      { name: 'lint', state: 'success', url: 'https://railyard.example.com/ci/logs/7d2e/lint' },
      { name: 'test', state: 'pending', url: 'https://railyard.example.com/ci/logs/7d2e/test' },
    ],
    failedChecks: [],
  },
};
const PR_KEY = { ...KEY, pr: { number: 12 } };

/** The queue and PR operations of the v1 spec, whose schemas live in this library. */
export const queueOperations: OperationDoc[] = [
  {
    method: 'post',
    path: '/v1/createQueue',
    operationId: 'createQueue',
    tag: 'Queues',
    summary: 'Create a queue for a branch',
    description: 'Takes every updateQueue field as an initial setting; unknown fields are refused.',
    scope: 'admin',
    request: {
      name: 'CreateQueueRequest',
      schema: createQueueRequest,
      example: { ...KEY, concurrency: 2, requiredStatuses: ['build', 'test'] },
    },
    response: { description: 'The queue created', body: { name: 'QueueEnvelope', schema: queueEnvelopeSchema, example: ENVELOPE } },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/updateQueue',
    operationId: 'updateQueue',
    tag: 'Queues',
    summary: "Change a queue's settings or state",
    description: 'Only the fields given change; `state` pauses, resumes or drains the queue.',
    scope: 'admin',
    request: { name: 'UpdateQueueRequest', schema: updateQueueRequest, example: { ...KEY, state: 'paused' } },
    response: {
      description: 'The queue after the change',
      body: { name: 'QueueEnvelope', schema: queueEnvelopeSchema, example: ENVELOPE },
    },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/v1/deleteQueue',
    operationId: 'deleteQueue',
    tag: 'Queues',
    summary: 'Delete an empty queue',
    scope: 'admin',
    request: { name: 'QueueKey', schema: deleteQueueRequest, example: KEY },
    response: { description: 'Deleted', body: { name: 'Empty', schema: emptyResponseSchema, example: {} } },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/v1/getQueue',
    operationId: 'getQueue',
    tag: 'Queues',
    summary: 'A queue: its state, settings and PRs in queue order',
    scope: 'read',
    request: { name: 'GetQueueRequest', schema: getQueueRequest, example: KEY },
    response: {
      description: 'The queue',
      body: {
        name: 'Queue',
        schema: getQueueResponseSchema,
        example: {
          ...ENVELOPE,
          enqueuedPullRequests: [
            {
              number: 12,
              title: PR.prTitle,
              sha: PR.prSha,
              author: 'ada',
              state: 'testing',
              priority: 100,
              priorityName: 'medium',
              stateChangedAt: PR.stateChangedAt,
              stateReason: PR.stateReason,
              waitingOn: PR.waitingOn,
              lastTestRun: PR.lastTestRun,
            },
          ],
        },
      },
    },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/submitPullRequest',
    operationId: 'submitPullRequest',
    tag: 'Pull requests',
    summary: 'Submit a PR to its queue',
    description: 'Submitting a queued PR again updates its priority and noBatch in place.',
    scope: 'write',
    request: { name: 'SubmitPullRequestRequest', schema: submitPullRequestRequest, example: { ...PR_KEY, priority: 'high' } },
    response: {
      description: 'The PR as getSubmittedPullRequest shows it',
      body: { name: 'SubmittedPullRequest', schema: submittedPullRequestSchema, example: PR },
    },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/v1/cancelPullRequest',
    operationId: 'cancelPullRequest',
    tag: 'Pull requests',
    summary: 'Take a PR out of its queue',
    scope: 'write',
    request: { name: 'PullRequestKey', schema: prActionRequest, example: PR_KEY },
    response: {
      description: 'The PR, cancelled',
      body: {
        name: 'SubmittedPullRequest',
        schema: submittedPullRequestSchema,
        example: { ...PR, state: 'cancelled', isCurrentlySubmittedToQueue: false },
      },
    },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/v1/restartTestsOnPullRequest',
    operationId: 'restartTestsOnPullRequest',
    tag: 'Pull requests',
    summary: 'Test a queued PR again',
    scope: 'write',
    request: { name: 'PullRequestKey', schema: prActionRequest, example: PR_KEY },
    response: { description: 'The PR', body: { name: 'SubmittedPullRequest', schema: submittedPullRequestSchema, example: PR } },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/v1/getSubmittedPullRequest',
    operationId: 'getSubmittedPullRequest',
    tag: 'Pull requests',
    summary: 'A submitted PR: its state, readiness and priority',
    scope: 'read',
    request: { name: 'PullRequestKey', schema: getSubmittedPullRequestRequest, example: PR_KEY },
    response: { description: 'The PR', body: { name: 'SubmittedPullRequest', schema: submittedPullRequestSchema, example: PR } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/setImpactedTargets',
    operationId: 'setImpactedTargets',
    tag: 'Impacted targets',
    summary: "Upload a PR's impacted targets (parallel queues)",
    description: 'A list of target names (`[]`: depends on nothing) or the string `ALL`; the last upload for a head SHA wins.',
    scope: 'write',
    request: {
      name: 'SetImpactedTargetsRequest',
      schema: setImpactedTargetsRequest,
      example: { ...KEY, pr: { number: 12, sha: PR.prSha }, impactedTargets: ['//services/cache', '//libs/widgets'] },
    },
    response: {
      description: 'What was stored',
      body: {
        name: 'ImpactedTargetsStored',
        schema: setImpactedTargetsResponseSchema,
        example: {
          prNumber: 12,
          headSha: PR.prSha,
          impactsAll: false,
          count: 2,
          digest: 'a3f1c9e2b4d6f8a0c2e4f6a8b0d2f4a6c8e0a2c4e6a8b0d2f4a6c8e0a2c4e6a8',
        },
      },
    },
    errors: [404],
  },
];
