import { Router } from 'express';
import { z } from 'zod';
import { repoSchema, targetBranchSchema } from '@railyard/api-schema';
import { queueIdOf, queueStreamOf } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import { PageQueryError } from '@railyard/testhealth';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { parseBody } from '../http/validate';
import { historyPage } from '@railyard/readmodels';
import { postRoute } from './route';

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
 * POST /v1/getQueueHistory: the queue's events, oldest first, paged. Read straight from the queue's
 * stream, which outlives QueueDeleted, so the trail of a deleted queue stays readable; 404 only
 * when no queue ever existed for the repository and branch.
 */
export const historyRoutes = (deps: ApiDeps, { eventStore }: { eventStore: EventStore }): Router => {
  const router = Router();
  postRoute(router, deps, '/getQueueHistory', 'read', async (raw) => {
    const body = parseBody(getQueueHistoryRequest, raw);
    const queueId = queueIdOf(body.repo, body.targetBranch);
    const stream = await eventStore.readStream(queueStreamOf(queueId));
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
  });
  router.all('/getQueueHistory', (req, _res, next) =>
    next(new ApiError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use POST`, undefined, { Allow: 'POST' })),
  );
  return router;
};
