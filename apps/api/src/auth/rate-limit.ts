import type { Request, RequestHandler } from 'express';
import { ApiError } from '../http/errors';
import type { TokenRegistry } from '@railyard/auth';

export interface RateLimitOptions {
  /** Requests per second per API token; 0 = no limit (the default for a self-hosted queue, whose clients are its own CI). */
  perToken: number;
  /** Requests per second per source address, for requests without a valid token; 0 = no limit. */
  perAddress: number;
  tokens: TokenRegistry;
  /** Injected so the tests need no waiting. */
  now?: () => number;
  /** Most source addresses tracked at once; past it, a new address without a valid token is refused until buckets refill. */
  maxAddresses?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets of one kind of key: `perSecond` sustained, bursts up to one second's worth. */
class Buckets {
  private readonly byKey = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(
    readonly perSecond: number,
    private readonly max: number,
  ) {}

  private level(b: Bucket, t: number): number {
    return Math.min(this.perSecond, b.tokens + ((t - b.at) / 1000) * this.perSecond);
  }

  /** Takes one request from the key's bucket: 0 when allowed, else the seconds until one is. */
  take(key: string, t: number): number {
    let b = this.byKey.get(key);
    if (!b) {
      if (this.byKey.size >= this.max) this.sweep(t);
      if (this.byKey.size >= this.max) return 1;
      b = { tokens: this.perSecond, at: t };
      this.byKey.set(key, b);
    }
    b.tokens = this.level(b, t);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }

  /** A full bucket is the same as none: forget those. At most once a second, so a flood of new keys cannot make every request walk the map. */
  private sweep(t: number): void {
    if (t - this.lastSweep < 1000) return;
    this.lastSweep = t;
    for (const [key, b] of this.byKey) if (this.level(b, t) >= this.perSecond) this.byKey.delete(key);
  }
}

const secretOf = (req: Request): string | undefined => {
  const header = req.headers['x-api-token'];
  return Array.isArray(header) ? header[0] : header;
};

/**
 * One limiter in front of every route (buildApp mounts it before the routers, so a route cannot be
 * left out). A request with a valid token counts against that token; any other request (no token,
 * an unknown one, a path that does not exist) counts against its source address, so guessing tokens
 * is as slow as the address limit. Over the limit: 429 with Retry-After, before the body is read.
 */
export const rateLimit = (options: RateLimitOptions): RequestHandler => {
  const now = options.now ?? Date.now;
  const tokens = new Buckets(options.perToken, Number.MAX_SAFE_INTEGER);
  const addresses = new Buckets(options.perAddress, options.maxAddresses ?? 10_000);
  if (tokens.perSecond <= 0 && addresses.perSecond <= 0) return (_req, _res, next) => next();
  return (req, _res, next) => {
    const secret = secretOf(req);
    const token = secret ? options.tokens.identifyOn(req.socket, secret) : undefined;
    const [buckets, key] = token ? [tokens, token.name] : [addresses, req.socket.remoteAddress ?? 'unknown'];
    if (buckets.perSecond <= 0) return next();
    const retryAfter = buckets.take(key, now());
    if (retryAfter === 0) return next();
    const who = token ? `token "${key}"` : `${key} (without a valid token)`;
    next(
      new ApiError(429, 'RATE_LIMIT_EXCEEDED', `${who} is over ${buckets.perSecond} requests per second`, undefined, {
        'Retry-After': String(retryAfter),
      }),
    );
  };
};
