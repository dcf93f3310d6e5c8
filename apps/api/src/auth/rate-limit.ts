import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors';

/**
 * A token bucket per API token: `perSecond` sustained, bursts up to one second's worth. Off when
 * perSecond is 0 (the default for a self-hosted queue, whose clients are its own CI). The clock is
 * injected so the tests need no waiting.
 */
export const rateLimit = (perSecond: number, now: () => number = Date.now): RequestHandler => {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (_req, res, next) => {
    if (perSecond <= 0) return next();
    const key = String(res.locals.actor);
    const t = now();
    const b = buckets.get(key) ?? { tokens: perSecond, at: t };
    b.tokens = Math.min(perSecond, b.tokens + ((t - b.at) / 1000) * perSecond);
    b.at = t;
    buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return next();
    }
    const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / perSecond));
    next(
      new ApiError(429, 'RATE_LIMIT_EXCEEDED', `token "${key}" is over ${perSecond} requests per second`, undefined, {
        'Retry-After': String(retryAfter),
      }),
    );
  };
};
