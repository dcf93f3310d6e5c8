import type { Request, RequestHandler } from 'express';
import { ApiError } from '../http/errors';
import { couldBeSecret, type TokenRegistry } from '@railyard/auth';

export interface RateLimitOptions {
  /** Requests per second per API token; 0 = no limit (the default for a self-hosted queue, whose clients are its own CI). */
  perToken: number;
  /** Failed authentications per second per source address; 0 = no limit. */
  perAddress: number;
  tokens: TokenRegistry;
  /** Injected so the tests need no waiting. */
  now?: () => number;
  /** Most source addresses tracked at once; past it, a new address failing authentication is refused until buckets refill. */
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
    const wait = this.wait(key, t);
    if (wait === 0) (this.byKey.get(key) as Bucket).tokens -= 1;
    return wait;
  }

  /** Like take, without taking: 0 when the key could make a request now, else the seconds until it can. */
  wait(key: string, t: number): number {
    let b = this.byKey.get(key);
    if (!b) {
      if (this.byKey.size >= this.max) this.sweep(t);
      if (this.byKey.size >= this.max) return 1;
      b = { tokens: this.perSecond, at: t };
      this.byKey.set(key, b);
    }
    b.tokens = this.level(b, t);
    b.at = t;
    return b.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
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

const addressOf = (req: Request): string => req.socket.remoteAddress ?? 'unknown';

const tooMany = (who: string, perSecond: number, retryAfter: number) =>
  new ApiError(429, 'RATE_LIMIT_EXCEEDED', `${who} is over ${perSecond} requests per second`, undefined, {
    'Retry-After': String(retryAfter),
  });

/** The limiter in front of every route, and the count of failed authentications that do not come through it. */
export interface RateLimiter {
  middleware: RequestHandler;
  /**
   * For a way in that proves a token outside the x-api-token header (the dashboard's sign-in form):
   * the seconds before this address may try again (0: it may now). Call before checking the token.
   */
  authenticationWait(req: Request): number;
  /** Counts a failed authentication of that kind against the address. */
  authenticationFailed(req: Request): void;
}

/**
 * One limiter in front of every route (buildApp mounts it before the routers, so a route cannot be
 * left out). A request with a valid token counts against that token. Only failed authentications count
 * against the source address: a token that could be a secret but is no known one. A missing or
 * malformed token is answered 401 by the route and never counts, so a CI fleet behind one address
 * whose token is wrong learns that from the 401 instead of retrying 429s (docs/security.md, "Limits").
 * Over a limit: 429 with Retry-After, before the body is read.
 */
export const rateLimit = (options: RateLimitOptions): RateLimiter => {
  const now = options.now ?? Date.now;
  const tokens = new Buckets(options.perToken, Number.MAX_SAFE_INTEGER);
  const addresses = new Buckets(options.perAddress, options.maxAddresses ?? 10_000);
  const failing = (address: string) => `${address} (failing authentication)`;
  const middleware: RequestHandler = (req, _res, next) => {
    const secret = secretOf(req);
    if (!secret || !couldBeSecret(secret)) return next();
    const token = options.tokens.identifyOn(req.socket, secret);
    const [buckets, key] = token ? [tokens, token.name] : [addresses, addressOf(req)];
    if (buckets.perSecond <= 0) return next();
    const retryAfter = buckets.take(key, now());
    if (retryAfter === 0) return next();
    next(tooMany(token ? `token "${key}"` : failing(key), buckets.perSecond, retryAfter));
  };
  return {
    middleware: tokens.perSecond <= 0 && addresses.perSecond <= 0 ? (_req, _res, next) => next() : middleware,
    authenticationWait: (req) => (addresses.perSecond <= 0 ? 0 : addresses.wait(addressOf(req), now())),
    authenticationFailed: (req) => {
      if (addresses.perSecond > 0) addresses.take(addressOf(req), now());
    },
  };
};
