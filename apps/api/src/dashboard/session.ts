import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { parse as parseCookies, serialize } from 'cookie';
import { sign, unsign } from 'cookie-signature';
import { requireToken } from '../auth/middleware';
import { scopeAllows, type ApiToken, type Scope, type TokenRegistry } from '@railyard/auth';

export const SESSION_COOKIE = 'railyard_session';
const PRE_SESSION_COOKIE = 'railyard_signin';
const SESSION_HOURS = 12;

export interface Session {
  name: string;
  scope: Scope;
  /** The signed cookie value: the CSRF token of every form is derived from it. */
  id: string;
}

/**
 * Browser sessions of the dashboard. Signing in proves an API token once; the cookie then names the
 * token (not its secret), with an expiry and a nonce, signed with HMAC (cookie-signature). A session
 * ends when it expires or its token is no longer configured. Forms carry a CSRF token that is an HMAC
 * of the session cookie (docs/security.md, "Dashboard").
 */
export class Sessions {
  private readonly secret: string;

  constructor(
    private readonly tokens: TokenRegistry,
    secret?: string,
    private readonly now: () => number = Date.now,
  ) {
    this.secret = secret ?? randomBytes(32).toString('base64url');
  }

  /** The token proved by `secret`, or undefined. */
  prove(secret: string): ApiToken | undefined {
    return this.tokens.identify(secret);
  }

  start(res: Response, req: Request, token: ApiToken): void {
    const expires = this.now() + SESSION_HOURS * 3_600_000;
    const value = sign(`${token.name}.${expires}.${randomBytes(9).toString('base64url')}`, this.secret);
    res.append('Set-Cookie', this.cookie(req, SESSION_COOKIE, value, SESSION_HOURS * 3600));
    res.append('Set-Cookie', this.cookie(req, PRE_SESSION_COOKIE, '', 0));
  }

  end(res: Response, req: Request): void {
    res.append('Set-Cookie', this.cookie(req, SESSION_COOKIE, '', 0));
  }

  /** The session a request carries, when its cookie is ours, unexpired, and its token still configured. */
  of(req: Request): Session | undefined {
    const value = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    if (!value) return undefined;
    const payload = unsign(value, this.secret);
    if (payload === false) return undefined;
    const [name, expires] = payload.split('.');
    if (!name || !(Number(expires) > this.now())) return undefined;
    const token = this.tokens.byName(name);
    return token ? { name: token.name, scope: token.scope, id: value } : undefined;
  }

  /** The CSRF token for forms of this session (or of the sign-in page, bound to its pre-session cookie). */
  csrfFor(id: string): string {
    return createHmac('sha256', this.secret).update(`csrf:${id}`).digest('base64url');
  }

  checkCsrf(id: string, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(this.csrfFor(id));
    const got = Buffer.from(presented);
    return expected.length === got.length && timingSafeEqual(expected, got);
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
    return serialize(name, value, { httpOnly: true, sameSite: 'strict', path: '/', maxAge, secure: req.secure });
  }

  /**
   * For GET pages an API client reads with x-api-token (the check logs): a signed-in browser with
   * enough scope is let through as its session's token, so log links work in the browser.
   */
  tokenOrSession(needed: Scope): RequestHandler {
    const byToken = requireToken(this.tokens, needed);
    return (req, res, next) => {
      const session = req.headers['x-api-token'] === undefined ? this.of(req) : undefined;
      if (!session || !scopeAllows(session.scope, needed)) return byToken(req, res, next);
      res.locals.actor = session.name;
      res.locals.scope = needed;
      next();
    };
  }
}
