import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors';
import { couldBeSecret, scopeAllows, type Scope, type TokenRegistry } from '@railyard/auth';

/** Runs before the body is read, so an unauthenticated client cannot make us parse 20 MiB. */
export const requireToken =
  (registry: TokenRegistry, needed: Scope): RequestHandler =>
  (req, res, next) => {
    const header = req.headers['x-api-token'];
    const secret = Array.isArray(header) ? header[0] : header;
    if (!secret) return next(new ApiError(401, 'AUTHENTICATION_REQUIRED', 'the x-api-token header is missing'));
    if (!couldBeSecret(secret))
      return next(new ApiError(401, 'INVALID_TOKEN', 'the x-api-token is malformed: no token has a secret like it'));
    const token = registry.identifyOn(req.socket, secret);
    if (!token) return next(new ApiError(401, 'INVALID_TOKEN', 'the x-api-token is not a known token'));
    if (!scopeAllows(token.scope, needed))
      return next(
        new ApiError(403, 'INSUFFICIENT_PERMISSIONS', `token "${token.name}" has scope ${token.scope}; this endpoint needs ${needed}`),
      );
    res.locals.actor = token.name;
    res.locals.scope = needed;
    next();
  };
