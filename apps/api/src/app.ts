import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import { httpRequestMetrics } from '@railyard/observability';
import type { ApiDeps } from './deps';
import { errorHandler, notFoundHandler } from './http/errors';
import { operationsRouter } from './http/operations-router';
import { apiDocument } from './openapi/document';
import { cliDownloadRouter } from './cli-download';
import { docsAssetsRouter } from './openapi/routes';
import { APP_OPERATIONS } from './operations';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Reuses a caller's request id when it is sane, so one id follows a request through CI logs and ours. */
const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.header('x-request-id');
  res.locals.requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', res.locals.requestId);
  next();
};

/**
 * One JSON line per request. Successful reads (read-scope endpoints CI jobs poll) are logged at debug,
 * so polling does not drown the log or cost every read a log line; writes and failures stay at info
 * (5xx at error). The request histogram still counts every request.
 */
const accessLog =
  (deps: ApiDeps): RequestHandler =>
  (req, res, next) => {
    const started = process.hrtime.bigint();
    // Read now: by the time the answer is sent, a mounted router has stripped its prefix (/v1) from req.path.
    const path = req.path;
    res.on('finish', () => {
      // A 503 is a deliberate answer (not ready, no projector, busy), logged once per request but not as a fault.
      const level =
        res.statusCode === 503
          ? 'warn'
          : res.statusCode >= 500
            ? 'error'
            : res.statusCode < 400 && res.locals.scope === 'read'
              ? 'debug'
              : 'info';
      if (!deps.logger.isLevelEnabled(level)) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      deps.logger.log(level, 'http', {
        method: req.method,
        path,
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        requestId: res.locals.requestId,
        actor: res.locals.actor,
      });
    });
    next();
  };

/**
 * The express app without listen(): tests drive it with supertest, servers wrap it. It serves
 * APP_OPERATIONS itself; `routers` (the other features' operations, each an operationsRouter) and
 * `pageRouters` (the CI pages, the dashboard) follow at the root; `signedRouters` come ahead of the
 * rate limit: callers that prove themselves by a signature of their own (GitHub's webhooks), whose
 * requests a 429 would lose (docs/decisions.md D150).
 */
export const buildApp = (
  deps: ApiDeps,
  routers: express.Router[] = [],
  pageRouters: express.Router[] = [],
  signedRouters: express.Router[] = [],
): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId, accessLog(deps), httpRequestMetrics());
  const own = { ...deps, document: () => apiDocument() };
  const liveness = APP_OPERATIONS.filter((op) => op.unlimited);
  const limited = APP_OPERATIONS.filter((op) => !op.unlimited);
  app.use(operationsRouter(liveness, own));
  if (signedRouters.length) app.use(...signedRouters);
  // Everything after /healthz is limited, unknown paths included: one place, so no route is left out.
  if (deps.limiter) app.use(deps.limiter.middleware);
  if (deps.bodyBudget) app.use(deps.bodyBudget);
  app.use(operationsRouter(limited, own), docsAssetsRouter(), cliDownloadRouter());
  if (routers.length) app.use(...routers);
  if (pageRouters.length) app.use(...pageRouters);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
};
