import express, { type Express, type RequestHandler, type Router } from 'express';
import type { ApiDeps } from '../deps';
import { ApiError, errorHandler } from '../http/errors';
import { ciLogRoutes } from '../routes/ci-logs';
import { pullPageRoutes } from '../routes/pull-pages';
import { statusRoutes } from '../routes/statuses';
import { testingDetailsRoutes } from '../routes/testing-details';
import type { CiHttpDeps } from './deps';

/** The CI endpoints under /v1, for buildApp's extraRouters. */
export const ciRouters = (deps: ApiDeps, ci: CiHttpDeps): Router[] => [statusRoutes(deps, ci), testingDetailsRoutes(deps, ci)];

// A malformed %-escape in a path is the client's mistake; the router reports it with a 400 status.
const badPaths: express.ErrorRequestHandler = (err, _req, _res, next) => {
  const status = (err as { status?: unknown })?.status;
  next(typeof status === 'number' && status >= 400 && status < 500 && !(err instanceof ApiError) ? new ApiError(400, 'BAD_PATH', 'the request path is not valid') : err);
};

const PAGE_PREFIXES = ['/ci/logs/', '/repos/'];

const accessLog =
  (deps: ApiDeps): RequestHandler =>
  (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      deps.logger.log(res.statusCode >= 500 ? 'error' : 'info', 'http', { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10, actor: res.locals.actor });
    });
    next();
  };

/**
 * The app with the CI pages outside /v1: the check logs (`/ci/logs/…`) and the local host's PR pages
 * (`/repos/…/pulls/…`) that statuses and test-run details link to. Everything else goes to `app`.
 */
export const withCiPages = (app: Express, deps: ApiDeps, ci: CiHttpDeps): Express => {
  const root = express();
  root.disable('x-powered-by');
  root.set('etag', false);
  const pages = express.Router();
  pages.use(accessLog(deps), ciLogRoutes(deps, ci), pullPageRoutes(deps));
  const onlyPages: RequestHandler = (req, res, next) => (PAGE_PREFIXES.some((p) => req.path.startsWith(p)) ? pages(req, res, next) : next());
  root.use(onlyPages);
  root.use(app);
  root.use(badPaths, errorHandler(deps.logger));
  return root;
};
