import type { Request } from 'express';
import { healthResponseSchema, readinessResponseSchema } from '@railyard/api-schema';
import type { TokenRegistry } from '@railyard/auth';
import type { ApiDeps } from '../deps';
import { operationOf } from '../http/operation';

const operation = operationOf<Pick<ApiDeps, 'projection' | 'readModels' | 'tokens'>>();

/** A caller with any valid token may see which repositories have a problem and who projects; probes without one get codes and counts. */
const hasToken = (req: Request, tokens: TokenRegistry): boolean => {
  const header = req.headers['x-api-token'];
  const secret = Array.isArray(header) ? header[0] : header;
  return !!secret && !!tokens.identifyOn(req.socket, secret);
};

/** `GET /healthz` and `GET /readyz`: liveness (ahead of every limit) and readiness. */
export const probeOperations = [
  operation({
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'Operations',
    summary: 'Liveness: the process answers',
    scope: 'public',
    unlimited: true,
    response: { description: 'Alive', body: { name: 'Health', schema: healthResponseSchema, example: { status: 'ok' } } },
    handle: () => ({ status: 'ok' }),
  }),
  /**
   * 200 while this API can answer honestly and promptly, 503 (same body) when no projector holds the
   * lease or the read models lag past RAILYARD_PROJECTION_MAX_LAG_MS. Queues whose repository the
   * engine cannot reach are listed but do not fail readiness: the API still serves every other queue,
   * and taking it out of rotation would hide the report (docs/operations.md, "Readiness").
   */
  operation({
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'Operations',
    summary: 'Readiness: a projector runs and the read models are current enough to answer',
    description:
      'Not ready (503, same body) when no projector holds the projector lease or the read models lag past RAILYARD_PROJECTION_MAX_LAG_MS (docs/operations.md, "Readiness"). Queues the engine cannot drive are listed in `hostProblems` (with repository and detail, and the projector `holder`, only for a caller that sends a valid `x-api-token`) without making the API unready.',
    scope: 'public',
    // Limited per source address like every route but /healthz (docs/api.md, "Limits").
    errors: [429],
    response: {
      description: 'Ready',
      body: {
        name: 'Readiness',
        schema: readinessResponseSchema,
        example: {
          status: 'ready',
          projector: { running: true, holder: 'api-7f9c:41:6c0e2f0e-5d7b-4b43-9d8e-0f5a3b2f6a10' },
          projectionLag: { behind: false, seconds: 0, maxSeconds: 10, checkpoint: '1042', head: '1042' },
          problems: [],
          hostProblems: [],
        },
      },
      unavailable: {
        description: 'Not ready: no projector, or the read models lag too far; `problems` says which',
        example: {
          status: 'not_ready',
          projector: { running: false, holder: null },
          projectionLag: { behind: true, seconds: 42.5, maxSeconds: 10, checkpoint: '1042', head: '1057' },
          problems: [
            { code: 'PROJECTOR_UNAVAILABLE', message: 'no projector holds the projector lease: the read models are not being updated' },
            { code: 'READ_MODELS_BEHIND', message: 'the read models are 42.5 s behind the event store (limit 10 s)' },
          ],
          hostProblems: [{ code: 'REPOSITORY_NOT_FOUND', since: '2026-03-01T09:00:00.000Z' }],
        },
      },
    },
    handle: async (_input, { deps, req, res }) => {
      const [status, problemQueues] = await Promise.all([deps.projection.status(), deps.readModels.listHostProblems()]);
      const detailed = hasToken(req, deps.tokens);
      const hostProblems = problemQueues.flatMap(({ repo, branch, hostProblem: p }) =>
        p ? [{ ...(detailed ? { repo, branch, detail: p.detail } : {}), code: p.code, since: p.since }] : [],
      );
      res.setHeader('Cache-Control', 'no-store');
      res.status(status.ready ? 200 : 503).json({
        status: status.ready ? 'ready' : 'not_ready',
        // The holder's id names a host and pid: shown to token holders only, like the queue names below.
        projector: detailed ? status.projector : { running: status.projector.running },
        projectionLag: status.lag,
        problems: status.problems,
        hostProblems,
      });
    },
  }),
];
