import type { Request, RequestHandler } from 'express';
import type { ReadModelStore } from '@railyard/readmodels';
import type { TokenRegistry } from '@railyard/auth';
import type { ProjectionHealth } from './projection-health';

export interface ReadyzOptions {
  projection: ProjectionHealth;
  readModels: Pick<ReadModelStore, 'listHostProblems'>;
  tokens: TokenRegistry;
}

/** A caller with any valid token may see which repositories have a problem and who projects; probes without one get codes and counts. */
const hasToken = (req: Request, tokens: TokenRegistry): boolean => {
  const header = req.headers['x-api-token'];
  const secret = Array.isArray(header) ? header[0] : header;
  return !!secret && !!tokens.identifyOn(req.socket, secret);
};

/**
 * GET /readyz: 200 while this API can answer honestly and promptly, 503 (same body) when no projector
 * holds the lease or the read models lag past RAILYARD_PROJECTION_MAX_LAG_MS. Queues whose repository
 * the engine cannot reach are listed but do not fail readiness: the API still serves every other
 * queue, and taking it out of rotation would hide the report (docs/operations.md, "Readiness").
 */
export const readyz =
  (options: ReadyzOptions): RequestHandler =>
  async (req, res, next) => {
    try {
      const [status, problemQueues] = await Promise.all([options.projection.status(), options.readModels.listHostProblems()]);
      const detailed = hasToken(req, options.tokens);
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
    } catch (err) {
      next(err);
    }
  };
