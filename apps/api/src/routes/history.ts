import { z } from 'zod';
import { historyPageSchema, repoSchema, targetBranchSchema } from '@railyard/api-schema';
import type { TokenRegistry } from '@railyard/auth';
import { queueIdOf, queueStreamOf } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import { historyPage } from '@railyard/readmodels';
import { PageQueryError } from '@railyard/testhealth';
import { ApiError } from '../http/errors';
import { operationOf } from '../http/operation';
import { REPO } from '../openapi/examples';

const operation = operationOf<{ tokens: TokenRegistry; eventStore: EventStore }>();

const isoTime = (field: string) =>
  z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 time with a zone, e.g. 2026-03-01T09:30:00Z` });

export const getQueueHistoryRequest = z
  .object({
    repo: repoSchema,
    targetBranch: targetBranchSchema,
    // page_size is range-checked by the pager, which answers INVALID_PAGE_SIZE like every paged endpoint.
    page_query: z.object({ page_size: z.unknown().optional(), page_token: z.string().optional() }).strict().optional(),
    since: isoTime('since').optional(),
    until: isoTime('until').optional(),
  })
  .strict()
  .refine((b) => !b.since || !b.until || Date.parse(b.since) <= Date.parse(b.until), {
    message: 'until must not be before since',
    path: ['until'],
  });

/**
 * The queue's events, oldest first, paged. Read straight from the queue's stream, which outlives
 * QueueDeleted, so the trail of a deleted queue stays readable; 404 only when no queue ever existed
 * for the repository and branch.
 */
export const historyOperations = [
  operation({
    method: 'post',
    path: '/v1/getQueueHistory',
    operationId: 'getQueueHistory',
    tag: 'History',
    summary: "A queue's events, oldest first, paged (also after the queue was deleted)",
    scope: 'read',
    request: {
      name: 'GetQueueHistoryRequest',
      schema: getQueueHistoryRequest,
      example: { repo: REPO, targetBranch: 'main', since: '2026-03-01T00:00:00Z', page_query: { page_size: 100 } },
    },
    response: { description: 'One page of events', body: { name: 'HistoryPage', schema: historyPageSchema } },
    errors: [404],
    handle: async (body, { deps }) => {
      const queueId = queueIdOf(body.repo, body.targetBranch);
      const stream = await deps.eventStore.readStream(queueStreamOf(queueId));
      if (stream.length === 0) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue has ever existed for this repository and branch');
      try {
        return historyPage(queueId, stream, {
          since: body.since,
          until: body.until,
          page_query: body.page_query as { page_size?: number; page_token?: string } | undefined,
        });
      } catch (err) {
        if (err instanceof PageQueryError) throw new ApiError(400, err.code, err.message);
        throw err;
      }
    },
  }),
];
