import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { repoSchema } from '@railyard/api-schema';
import type { TokenRegistry } from '@railyard/auth';
import {
  deliverBody,
  newSigningSecret,
  publicView,
  resolveChecked,
  urlProblem,
  WEBHOOK_EVENT_TYPES,
  WebhookEndpointError,
  AddressRefused,
  type AddressPolicy,
  type DeliveryAttempt,
  type WebhookParts,
  type Endpoint,
  type EndpointService,
} from '@railyard/webhooks';
import { ApiError } from '../http/errors';
import { operationOf, type RouteContext } from '../http/operation';
import { REPO } from '../openapi/examples';

/** What the webhook operations need: the endpoints (events), the delivery log, and the address policy. */
export type WebhookApiParts = WebhookParts & { now?: () => Date };

type Deps = { tokens: TokenRegistry; webhooks?: WebhookApiParts };

/** A composition without webhooks (some tests) answers 503 rather than pretend. */
const parts = (ctx: RouteContext<Deps>): WebhookApiParts => {
  if (!ctx.deps.webhooks) throw new ApiError(503, 'WEBHOOKS_UNAVAILABLE', 'outgoing webhooks are not configured in this process');
  return ctx.deps.webhooks;
};
const operation = operationOf<Deps>();

const endpointId = z.string().min(1, 'endpointId must not be empty').max(100);
const url = z.string().min(1, 'url must not be empty').max(2048);
const filterFields = {
  description: z.string().max(500).optional(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).max(WEBHOOK_EVENT_TYPES.length).optional(),
  repos: z.array(repoSchema).max(100).optional(),
  targetBranches: z.array(z.string().min(1)).max(100).optional(),
};

const createRequest = z.object({ kind: z.enum(['webhook', 'slack']).optional(), url, ...filterFields }).strict();
const updateRequest = z.object({ endpointId, url: url.optional(), enabled: z.boolean().optional(), ...filterFields }).strict();
const idRequest = z.object({ endpointId }).strict();
const listDeliveriesRequest = z.object({ endpointId, limit: z.number().int().min(1).max(200).optional() }).strict();
const resendRequest = z.object({ endpointId, attemptId: z.number().int().min(1) }).strict();

const endpointView = z.object({
  endpointId: z.string(),
  kind: z.enum(['webhook', 'slack']),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  repos: z.array(repoSchema),
  targetBranches: z.array(z.string()),
  enabled: z.boolean(),
  disabled: z.object({ reason: z.enum(['ADMIN_REQUESTED', 'DELIVERY_FAILED']), detail: z.string().optional(), at: z.string() }).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const withSecret = z.object({ endpoint: endpointView, secret: z.string() });
const attemptView = z.object({
  attemptId: z.number(),
  messageId: z.string(),
  eventType: z.string(),
  position: z.string(),
  attempt: z.number(),
  status: z.number().nullable(),
  ok: z.boolean(),
  error: z.string().optional(),
  latencyMs: z.number(),
  responseExcerpt: z.string(),
  at: z.string(),
});

const EXAMPLE_ENDPOINT = {
  endpointId: '6f1c0f6e-3b1e-4c55-9a43-0a3f4f0e8a11',
  kind: 'webhook',
  url: 'https://hooks.example.com/railyard',
  description: 'merge notifications',
  events: ['pull_request.merged', 'pull_request.failed'],
  repos: [REPO],
  targetBranches: ['main'],
  enabled: true,
  createdAt: '2026-12-01T09:00:00.000Z',
  updatedAt: '2026-12-01T09:00:00.000Z',
};

/** An endpoint URL refused by its form or by where its name points; a name that does not resolve now is checked again at each delivery. */
const checkUrl = async (value: string, policy: AddressPolicy): Promise<void> => {
  const problem = urlProblem(value, policy);
  if (problem) throw new ApiError(400, 'INVALID_WEBHOOK_URL', problem, [{ field: 'url', message: problem }]);
  try {
    await resolveChecked(value, policy);
  } catch (err) {
    if (err instanceof AddressRefused)
      throw new ApiError(400, 'INVALID_WEBHOOK_URL', err.message, [{ field: 'url', message: err.message }]);
  }
};

const run = async (ctx: RouteContext<Deps>, command: Parameters<EndpointService['execute']>[0]): Promise<Endpoint> => {
  try {
    const endpoint = await parts(ctx).endpoints.execute(command, { actor: ctx.actor, correlationId: ctx.correlationId });
    if (!endpoint) throw new ApiError(404, 'WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${command.endpointId}`);
    return endpoint;
  } catch (err) {
    if (err instanceof WebhookEndpointError) throw new ApiError(404, err.code, err.message);
    throw err;
  }
};

const attemptOut = ({ body: _body, endpointId: _e, ...rest }: DeliveryAttempt) => rest;

/**
 * Outgoing webhooks (docs/webhooks.md): admins manage the endpoints Railyard sends Trunk's events to,
 * read each one's delivery log and send a message again. The secret is in the answer of create and
 * rotate only.
 */
export const webhookOperations = [
  operation({
    method: 'post',
    path: '/v1/createWebhookEndpoint',
    operationId: 'createWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Add an endpoint that is sent the queue events (its signing secret is shown this once)',
    description:
      'kind `webhook` (default) is sent Trunk’s payloads signed with the Standard Webhooks scheme; `slack` takes a Slack incoming-webhook URL. Empty or absent filters mean all. The URL must be http(s) and reach a public address unless RAILYARD_WEBHOOKS_ALLOW_NETWORKS allows its network.',
    scope: 'admin',
    request: {
      name: 'CreateWebhookEndpointRequest',
      schema: createRequest,
      example: { url: 'https://hooks.example.com/railyard', events: ['pull_request.merged'], repos: [REPO] },
    },
    response: {
      description: 'The endpoint and its secret',
      body: { name: 'WebhookEndpointWithSecret', schema: withSecret, example: { endpoint: EXAMPLE_ENDPOINT, secret: 'whsec_…' } },
    },
    handle: async (body, ctx) => {
      const { policy, endpoints } = parts(ctx);
      await checkUrl(body.url, policy);
      const secret = newSigningSecret();
      const endpoint = await run(ctx, {
        type: 'create',
        endpointId: randomUUID(),
        kind: body.kind ?? 'webhook',
        settings: {
          url: body.url,
          description: body.description ?? '',
          events: body.events ?? [],
          repos: body.repos ?? [],
          targetBranches: body.targetBranches ?? [],
        },
        secret,
        startAfter: await endpoints.head(),
      });
      return { endpoint: publicView(endpoint), secret };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/listWebhookEndpoints',
    operationId: 'listWebhookEndpoints',
    tag: 'Webhooks',
    summary: 'Every webhook endpoint, with whether it is enabled and why not',
    scope: 'admin',
    request: { name: 'ListWebhookEndpointsRequest', schema: z.object({}).strict(), example: {} },
    response: {
      description: 'The endpoints',
      body: {
        name: 'WebhookEndpointList',
        schema: z.object({ endpoints: z.array(endpointView) }),
        example: { endpoints: [EXAMPLE_ENDPOINT] },
      },
    },
    handle: async (_body, ctx) => ({ endpoints: (await parts(ctx).endpoints.list()).map(publicView) }),
  }),
  operation({
    method: 'post',
    path: '/v1/updateWebhookEndpoint',
    operationId: 'updateWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Change an endpoint’s URL, filters or description, or enable or disable it',
    description: 'Enabling an endpoint disabled after failed deliveries sends again from the message that failed.',
    scope: 'admin',
    request: {
      name: 'UpdateWebhookEndpointRequest',
      schema: updateRequest,
      example: { endpointId: EXAMPLE_ENDPOINT.endpointId, enabled: true },
    },
    response: { description: 'The endpoint', body: { name: 'WebhookEndpoint', schema: endpointView, example: EXAMPLE_ENDPOINT } },
    errors: [404],
    handle: async (body, ctx) => {
      const { endpointId: id, enabled, ...changes } = body;
      if (changes.url !== undefined) await checkUrl(changes.url, parts(ctx).policy);
      const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      return publicView(
        await run(ctx, { type: 'update', endpointId: id, changes: defined, ...(enabled !== undefined ? { enabled } : {}) }),
      );
    },
  }),
  operation({
    method: 'post',
    path: '/v1/disableWebhookEndpoint',
    operationId: 'disableWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Stop sending to an endpoint; its messages wait until it is enabled again',
    scope: 'admin',
    request: { name: 'WebhookEndpointRef', schema: idRequest, example: { endpointId: EXAMPLE_ENDPOINT.endpointId } },
    response: {
      description: 'The endpoint',
      body: { name: 'WebhookEndpoint', schema: endpointView, example: { ...EXAMPLE_ENDPOINT, enabled: false } },
    },
    errors: [404],
    handle: async (body, ctx) => publicView(await run(ctx, { type: 'disable', endpointId: body.endpointId, reason: 'ADMIN_REQUESTED' })),
  }),
  operation({
    method: 'post',
    path: '/v1/deleteWebhookEndpoint',
    operationId: 'deleteWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Remove an endpoint and its delivery log',
    scope: 'admin',
    request: { name: 'WebhookEndpointRef', schema: idRequest, example: { endpointId: EXAMPLE_ENDPOINT.endpointId } },
    response: { description: 'Deleted', body: { name: 'WebhookEndpointDeleted', schema: z.object({ endpointId: z.string() }) } },
    errors: [404],
    handle: async (body, ctx) => {
      if (!(await parts(ctx).endpoints.get(body.endpointId)))
        throw new ApiError(404, 'WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${body.endpointId}`);
      await parts(ctx).endpoints.execute(
        { type: 'delete', endpointId: body.endpointId },
        { actor: ctx.actor, correlationId: ctx.correlationId },
      );
      return { endpointId: body.endpointId };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/rotateWebhookSecret',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    summary: 'Give an endpoint a new signing secret (shown this once); messages from now on are signed with it',
    scope: 'admin',
    request: { name: 'WebhookEndpointRef', schema: idRequest, example: { endpointId: EXAMPLE_ENDPOINT.endpointId } },
    response: {
      description: 'The endpoint and its new secret',
      body: { name: 'WebhookEndpointWithSecret', schema: withSecret, example: { endpoint: EXAMPLE_ENDPOINT, secret: 'whsec_…' } },
    },
    errors: [404],
    handle: async (body, ctx) => {
      const secret = newSigningSecret();
      const endpoint = await run(ctx, { type: 'rotate', endpointId: body.endpointId, secret });
      return { endpoint: publicView(endpoint), secret };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/listWebhookDeliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'An endpoint’s latest delivery attempts, newest first (status, latency, the start of the answer)',
    scope: 'admin',
    request: {
      name: 'ListWebhookDeliveriesRequest',
      schema: listDeliveriesRequest,
      example: { endpointId: EXAMPLE_ENDPOINT.endpointId, limit: 50 },
    },
    response: {
      description: 'The attempts',
      body: { name: 'WebhookDeliveryList', schema: z.object({ deliveries: z.array(attemptView) }) },
    },
    errors: [404],
    handle: async (body, ctx) => {
      if (!(await parts(ctx).endpoints.get(body.endpointId)))
        throw new ApiError(404, 'WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${body.endpointId}`);
      return { deliveries: (await parts(ctx).deliveries.attempts(body.endpointId, body.limit ?? 50)).map(attemptOut) };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/resendWebhookDelivery',
    operationId: 'resendWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Send a logged message again, now, with the same id (receivers dedupe on it)',
    scope: 'admin',
    request: {
      name: 'ResendWebhookDeliveryRequest',
      schema: resendRequest,
      example: { endpointId: EXAMPLE_ENDPOINT.endpointId, attemptId: 12 },
    },
    response: { description: 'The new attempt', body: { name: 'WebhookDelivery', schema: attemptView } },
    errors: [404],
    handle: async (body, ctx) => {
      const { endpoints, deliveries, policy } = parts(ctx);
      const now = parts(ctx).now ?? (() => new Date());
      const endpoint = await endpoints.get(body.endpointId);
      if (!endpoint) throw new ApiError(404, 'WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${body.endpointId}`);
      const logged = await deliveries.attempt(body.endpointId, body.attemptId);
      if (!logged) throw new ApiError(404, 'WEBHOOK_DELIVERY_NOT_FOUND', `no delivery attempt ${body.attemptId} for this endpoint`);
      const result = await deliverBody(endpoint, logged.messageId, logged.body, { policy, timeoutMs: 10_000, now });
      // Attempt 0: sent again by hand, outside the retry schedule.
      const attempt = {
        endpointId: logged.endpointId,
        messageId: logged.messageId,
        eventType: logged.eventType,
        position: logged.position,
        attempt: 0,
        status: result.status,
        ok: result.ok,
        ...(result.error ? { error: result.error } : {}),
        latencyMs: result.latencyMs,
        responseExcerpt: result.responseExcerpt,
        at: now().toISOString(),
        body: logged.body,
      };
      return attemptOut({ ...attempt, attemptId: await deliveries.record(attempt) });
    },
  }),
];
