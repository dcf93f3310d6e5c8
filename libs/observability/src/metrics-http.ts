import type { RequestHandler } from 'express';
import { railyardMetrics } from './metrics-registry';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route template of a finished request. express leaves `req.route` set once a route matched,
 * but resets `req.baseUrl` when an error leaves a router, and `baseUrl` keeps the caller's spelling
 * anyway; so the mount point is read off the URL, lower-cased (routing ignores case, and each
 * spelling must not become a series of its own).
 * Requests no route matched share one label value, so a scanner trying random URLs adds one series.
 */
const routeOf = (req: Parameters<RequestHandler>[0]): string => {
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof routePath !== 'string') return 'unmatched';
  const path = (req.originalUrl.split('?')[0] ?? '').toLowerCase().replace(/\/+$/, '');
  const tail = routePath.toLowerCase();
  return path.endsWith(tail) ? `${path.slice(0, path.length - tail.length)}${routePath}` : routePath;
};

/** Observes every request's duration into railyard_http_request_duration_seconds. */
export const httpRequestMetrics =
  (histogram = railyardMetrics.httpRequestSeconds): RequestHandler =>
  (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      histogram.observe(
        { method: METHODS.has(req.method) ? req.method : 'OTHER', route: routeOf(req), status: String(res.statusCode) },
        seconds,
      );
    });
    next();
  };
