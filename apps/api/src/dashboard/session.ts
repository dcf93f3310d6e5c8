import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { parse as parseCookies, serialize } from 'cookie';
import { sign, unsign } from 'cookie-signature';
import { requireToken } from '../auth/middleware';
import { scopeAllows, type ApiToken, type Scope, type TokenRegistry } from '@railyard/auth';
import type { SessionRevocations } from './session-revocations';

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export const SESSION_COOKIE = 'railyard_session';
const PRE_SESSION_COOKIE = 'railyard_signin';
const SESSION_HOURS = 12;

export interface Session {
  name: string;
  scope: Scope;
  /** The signed cookie value: the CSRF token of every form is derived from it. */
  id: string;
  /** When it ends, and what names it for signing out. */
  expiresAt: number;
  nonce: string;
}

export interface SessionOptions {
  now?: () => number;
  /** Where sign-outs are recorded for every replica; without it a signed-out cookie lives to its expiry. */
  revocations?: SessionRevocations;
  /** `auto`: Secure when the request came over TLS (directly, or through a trusted proxy); `always`: on every cookie. */
  secureCookies?: 'auto' | 'always';
}

/**
 * Browser sessions of the dashboard. Signing in proves an API token once; the cookie then names the
 * token (not its secret), with an expiry, a nonce and a fingerprint of the secret, signed with HMAC
 * (cookie-signature). A session ends when it expires, when it signs out (a revocation record every
 * replica reads), or when its token is removed or given another secret (the fingerprint no longer
 * matches). Forms carry a CSRF token that is an HMAC of the session cookie (docs/dashboard.md).
 */
export class Sessions {
  private readonly now: () => number;

  constructor(
    private readonly tokens: TokenRegistry,
    private readonly secret: string,
    private readonly options: SessionOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The token proved by `secret`, or undefined. */
  prove(secret: string): ApiToken | undefined {
    return this.tokens.identify(secret);
  }

  start(res: Response, req: Request, token: ApiToken): void {
    const expires = this.now() + SESSION_HOURS * 3_600_000;
    const nonce = randomBytes(9).toString('base64url');
    const value = sign(`${token.name}.${expires}.${nonce}.${this.fingerprint(token)}`, this.secret);
    res.append('Set-Cookie', this.cookie(req, SESSION_COOKIE, value, SESSION_HOURS * 3600));
    res.append('Set-Cookie', this.cookie(req, PRE_SESSION_COOKIE, '', 0));
  }

  /** Signs out: the browser's cookie is cleared and the session revoked, so a copy of the cookie opens nothing either. */
  async end(res: Response, req: Request, session: Session | undefined): Promise<void> {
    if (session) await this.options.revocations?.revoke(session.nonce, session.expiresAt);
    res.append('Set-Cookie', this.cookie(req, SESSION_COOKIE, '', 0));
  }

  /**
   * The session a request carries, when its cookie is ours and unexpired, its token is still configured
   * with the secret it signed in with, and it has not signed out.
   */
  async of(req: Request): Promise<Session | undefined> {
    const value = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    if (!value) return undefined;
    const payload = unsign(value, this.secret);
    if (payload === false) return undefined;
    // Token names may hold dots; the three fields after the name never do.
    const parts = payload.split('.');
    const [expires, nonce, fingerprint] = parts.slice(-3);
    const name = parts.slice(0, -3).join('.');
    if (!name || !nonce || !fingerprint || !(Number(expires) > this.now())) return undefined;
    const token = this.tokens.byName(name);
    if (!token || !sameText(fingerprint, this.fingerprint(token))) return undefined;
    if (await this.options.revocations?.isRevoked(nonce)) return undefined;
    return { name: token.name, scope: token.scope, id: value, expiresAt: Number(expires), nonce };
  }

  /** The CSRF token for forms of this session (or of the sign-in page, bound to its pre-session cookie). */
  csrfFor(id: string): string {
    return createHmac('sha256', this.secret).update(`csrf:${id}`).digest('base64url');
  }

  checkCsrf(id: string, presented: unknown): boolean {
    return typeof presented === 'string' && sameText(presented, this.csrfFor(id));
  }

  /** Binds a session to the secret its token had at sign-in: another secret under the same name opens none of them. */
  private fingerprint(token: ApiToken): string {
    return createHmac('sha256', this.secret).update('token:').update(token.digest).digest('base64url').slice(0, 22);
  }

  /** The sign-in form's own CSRF binding: a random cookie set when the form is shown (login CSRF). */
  preSession(req: Request, res: Response): string {
    const existing = parseCookies(req.headers.cookie ?? '')[PRE_SESSION_COOKIE];
    if (existing) return existing;
    const value = randomBytes(18).toString('base64url');
    res.append('Set-Cookie', this.cookie(req, PRE_SESSION_COOKIE, value, 600));
    return value;
  }

  preSessionOf(req: Request): string | undefined {
    return parseCookies(req.headers.cookie ?? '')[PRE_SESSION_COOKIE] || undefined;
  }

  private cookie(req: Request, name: string, value: string, maxAge: number): string {
    const secure = this.options.secureCookies === 'always' || req.secure;
    return serialize(name, value, { httpOnly: true, sameSite: 'strict', path: '/', maxAge, secure });
  }

  /**
   * For GET pages an API client reads with x-api-token (the check logs): a signed-in browser with
   * enough scope is let through as its session's token, so log links work in the browser.
   */
  tokenOrSession(needed: Scope): RequestHandler {
    const byToken = requireToken(this.tokens, needed);
    return (req, res, next) => {
      const found = req.headers['x-api-token'] === undefined ? this.of(req) : Promise.resolve(undefined);
      found.then((session) => {
        if (!session || !scopeAllows(session.scope, needed)) return byToken(req, res, next);
        res.locals.actor = session.name;
        res.locals.scope = needed;
        next();
      }, next);
    };
  }
}
