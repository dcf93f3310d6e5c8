import type { RequestHandler } from 'express';
import { ApiError } from './errors';

export interface BodyBudgetOptions {
  /** Request-body bytes the process holds at once, across all requests not answered yet. */
  maxBytesInFlight: number;
  /** The largest body any route reads (json-body.ts's limit): the most one request reserves, also when chunked. */
  maxBodyBytes: number;
  /** Seconds a refused client is asked to wait. */
  retryAfterSeconds?: number;
}

export type BodyBudget = RequestHandler & {
  /** Bytes reserved by requests not answered yet. */
  inFlight(): number;
};

const MIB = 1024 * 1024;
const size = (n: number): string => (n >= MIB ? `${Math.round(n / MIB)} MiB` : `${Math.ceil(n / 1024)} KiB`);

/** What a request may bring: its Content-Length, or the largest body for a chunked one whose length is unknown. */
const declaredBytes = (headers: Record<string, string | string[] | undefined>, maxBodyBytes: number): number => {
  const length = headers['content-length'];
  if (typeof length === 'string' && /^\d+$/.test(length)) return Math.min(Number(length), maxBodyBytes);
  return headers['transfer-encoding'] !== undefined ? maxBodyBytes : 0;
};

/**
 * Caps the request-body bytes held at once. Each request with a body reserves what it declares
 * before a byte is read and gives it back when its answer is finished (or the client goes away);
 * one that does not fit answers 503 with Retry-After and its body is never buffered (node discards
 * it off the wire). A request alone in flight always fits, so no valid body is refused for ever.
 */
export const bodyBudget = (options: BodyBudgetOptions): BodyBudget => {
  let inFlight = 0;
  const retryAfter = String(options.retryAfterSeconds ?? 2);
  const handler: RequestHandler = (req, res, next) => {
    const bytes = declaredBytes(req.headers, options.maxBodyBytes);
    if (bytes === 0) return next();
    if (inFlight > 0 && inFlight + bytes > options.maxBytesInFlight) {
      return next(
        new ApiError(
          503,
          'SERVER_BUSY',
          `the server is reading ${size(inFlight)} of request bodies, its limit is ${size(options.maxBytesInFlight)}; retry in ${retryAfter} s`,
          undefined,
          { 'Retry-After': retryAfter },
        ),
      );
    }
    inFlight += bytes;
    res.once('close', () => {
      inFlight -= bytes;
    });
    next();
  };
  return Object.assign(handler, { inFlight: () => inFlight });
};
