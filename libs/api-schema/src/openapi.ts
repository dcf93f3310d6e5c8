import { z } from 'zod';
import { createQueueRequest, deleteQueueRequest, getQueueRequest, updateQueueRequest } from './queue';
import { getSubmittedPullRequestRequest, prActionRequest, setImpactedTargetsRequest, submitPullRequestRequest } from './pull-requests';

export interface OperationDoc {
  path: string;
  summary: string;
  scope: 'read' | 'write' | 'admin';
  request: z.ZodType;
}

/** Every POST operation of /v1 whose request schema lives here; other parts register theirs beside. */
export const operations: OperationDoc[] = [
  { path: '/createQueue', summary: 'Create a queue for a branch', scope: 'admin', request: createQueueRequest },
  { path: '/updateQueue', summary: 'Update queue configuration', scope: 'admin', request: updateQueueRequest },
  { path: '/deleteQueue', summary: 'Delete an empty queue', scope: 'admin', request: deleteQueueRequest },
  { path: '/getQueue', summary: 'Queue state, configuration and enqueued PRs', scope: 'read', request: getQueueRequest },
  { path: '/submitPullRequest', summary: 'Submit a PR to the queue', scope: 'write', request: submitPullRequestRequest },
  { path: '/cancelPullRequest', summary: 'Remove a PR from the queue', scope: 'write', request: prActionRequest },
  { path: '/restartTestsOnPullRequest', summary: 'Re-run tests on a queued PR', scope: 'write', request: prActionRequest },
  { path: '/getSubmittedPullRequest', summary: 'Status of a submitted PR', scope: 'read', request: getSubmittedPullRequestRequest },
  {
    path: '/setImpactedTargets',
    summary: 'Set impacted targets of a PR (parallel queues)',
    scope: 'write',
    request: setImpactedTargetsRequest,
  },
];

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
};

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export const openApiDocument = (extra: OperationDoc[] = []): Record<string, unknown> => ({
  openapi: '3.1.0',
  info: { title: 'Railyard merge queue API', version: '1' },
  servers: [{ url: '/v1' }],
  components: { securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-token' } } },
  security: [{ ApiKeyAuth: [] }],
  paths: Object.fromEntries(
    [...operations, ...extra].map((op) => [
      op.path,
      {
        post: {
          summary: op.summary,
          description: `Needs a token with the ${op.scope} scope.`,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: z.toJSONSchema(op.request, { io: 'input', unrepresentable: 'any' }) } },
          },
          responses: {
            '200': { description: 'Success' },
            ...Object.fromEntries(
              ['400', '401', '403', '404', '409', '413', '415', '429'].map((s) => [
                s,
                { description: 'Error', content: { 'application/json': { schema: errorSchema } } },
              ]),
            ),
          },
        },
      },
    ]),
  ),
});
