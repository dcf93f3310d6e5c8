import {
  createQueueRequest,
  deleteQueueRequest,
  emptyResponseSchema,
  getQueueRequest,
  getQueueResponseSchema,
  queueEnvelopeSchema,
  updateQueueRequest,
  type CreateQueueRequest,
  type UpdateQueueRequest,
} from '@railyard/api-schema';
import { explainFromState, queueIdOf, type Explanation, type QueueCommand, type QueueSettingsInput, type RepoRef } from '@railyard/domain';
import { activePrViewsOfState, explainViews, getQueueResponse, queueEnvelope, queueResponse, queueViewOfState } from '@railyard/readmodels';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { JsonText } from '../http/json-text';
import { operationOf } from '../http/operation';
import { ENVELOPE, KEY, PR, PR_SUMMARY } from '../openapi/examples';
import { STORE_READ_HEADER } from '../readiness/store-reads';

const operation = operationOf<ApiDeps>();

/** Splits a request into the queue settings and the fields that have their own events. */
const settingsOf = (body: Omit<CreateQueueRequest, 'repo' | 'targetBranch'> & { deleteRequiredStatuses?: boolean }): QueueSettingsInput => {
  const { state: _s, requiredStatuses: _r, deleteRequiredStatuses: _d, statusReporters: _w, ...settings } = body;
  return settings;
};

/** The createQueue request as the domain's command; the dashboard's form sends the same (dashboard/queue-forms.ts). */
export const createQueueCommandOf = (body: CreateQueueRequest): QueueCommand => ({
  type: 'CreateQueue',
  queueId: queueIdOf(body.repo, body.targetBranch),
  repo: body.repo,
  branch: body.targetBranch,
  settings: settingsOf(body),
  state: body.state,
  requiredStatuses: body.requiredStatuses,
  statusReporters: body.statusReporters,
});

/** The updateQueue request as the domain's command: only the fields given change. */
export const updateQueueCommandOf = (body: UpdateQueueRequest): QueueCommand => ({
  type: 'UpdateQueue',
  settings: settingsOf(body),
  state: body.state,
  requiredStatuses: body.requiredStatuses,
  deleteRequiredStatuses: body.deleteRequiredStatuses,
  statusReporters: body.statusReporters,
});

const answerWithQueue = async ({ commands, readModels }: ApiDeps, repo: RepoRef, branch: string) => {
  const view = (await readModels.getQueue(queueIdOf(repo, branch))) ?? queueViewOfState(await commands.read({ repo, branch }));
  return queueEnvelope(queueResponse(view));
};

/** Trunk's queue operations: create, configure, delete and read the queue of a target branch. */
export const queueOperations = [
  operation({
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
    handle: async (body, ctx) => {
      const { repo, targetBranch } = body;
      await ctx.deps.commands.execute({ repo, branch: targetBranch }, createQueueCommandOf(body), ctx);
      return answerWithQueue(ctx.deps, repo, targetBranch);
    },
  }),
  operation({
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
    handle: async (body, ctx) => {
      const { repo, targetBranch } = body;
      await ctx.deps.commands.execute({ repo, branch: targetBranch }, updateQueueCommandOf(body), ctx);
      return answerWithQueue(ctx.deps, repo, targetBranch);
    },
  }),
  operation({
    method: 'post',
    path: '/v1/deleteQueue',
    operationId: 'deleteQueue',
    tag: 'Queues',
    summary: 'Delete an empty queue',
    scope: 'admin',
    request: { name: 'QueueKey', schema: deleteQueueRequest, example: KEY },
    response: { description: 'Deleted', body: { name: 'Empty', schema: emptyResponseSchema, example: {} } },
    errors: [404, 409],
    handle: async ({ repo, targetBranch }, ctx) => {
      await ctx.deps.commands.execute({ repo, branch: targetBranch }, { type: 'DeleteQueue' }, ctx);
      return {};
    },
  }),
  operation({
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
              ...PR_SUMMARY,
              number: 12,
              title: PR.prTitle,
              sha: PR.prSha,
              author: 'ada',
              priority: 100,
              stateReason: PR.stateReason,
              waitingOn: PR.waitingOn,
              lastTestRun: PR.lastTestRun,
            },
          ],
        },
      },
    },
    errors: [404],
    handle: async ({ repo, targetBranch }, { deps, res }) => {
      const { commands, readModels } = deps;
      const queueId = queueIdOf(repo, targetBranch);
      // While the read models lag or nobody projects, the queue's own stream answers (docs/api.md,
      // "Reads while the read models lag"): never "no such queue" or an empty list the store contradicts.
      const fromStore = async () => {
        const state = await commands.read({ repo, branch: targetBranch });
        if (!state.exists) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
        res.setHeader(STORE_READ_HEADER, 'event-store');
        const prs = activePrViewsOfState(state);
        // Explained from the same state, as a write's answer is when the models lag.
        const explanations = prs.map((p) => explainFromState(state, p.prNumber) as Explanation);
        return getQueueResponse(queueViewOfState(state), prs, explanations);
      };
      if (await deps.projection.readFromStore()) return fromStore();
      // Written by the projection with the documents: sent as it is, no parse and no re-serialization.
      const answer = await readModels.getQueueAnswer(queueId);
      if (answer !== null) return new JsonText(answer);
      const view = await readModels.getQueue(queueId);
      if (!view) {
        if (await deps.projection.behind()) return fromStore();
        throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      }
      const prs = await readModels.listActivePrs(queueId);
      return getQueueResponse(view, prs, await explainViews(readModels, view, prs));
    },
  }),
];
