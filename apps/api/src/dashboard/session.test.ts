import type { Request, Response } from 'express';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { Sessions } from './session';

const tokens = new TokenRegistry(parseTokenList('ops:admin-secret-0123456789abcdef:admin,dash:read-secret-0123456789abcdef:read'));

/** The Set-Cookie values a response got, and a request carrying them back. */
const exchange = () => {
  const cookies: string[] = [];
  const res = { append: (_name: string, value: string) => cookies.push(value) } as unknown as Response;
  const requestWith = (jar: string[]): Request =>
    ({ secure: false, headers: { cookie: jar.map((c) => c.split(';')[0]).join('; ') } }) as unknown as Request;
  return { res, cookies, requestWith };
};

describe('dashboard sessions', () => {
  it('when a token signs in, then the cookie is HttpOnly, SameSite=Strict, names the token without its secret, and identifies the session', () => {
    const sessions = new Sessions(tokens, 'secret');
    const { res, cookies, requestWith } = exchange();
    sessions.start(res, requestWith([]), sessions.prove('read-secret-0123456789abcdef')!);
    const cookie = cookies.find((c) => c.startsWith('railyard_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain('read-secret');
    expect(sessions.of(requestWith([cookie]))).toMatchObject({ name: 'dash', scope: 'read' });
  });

  it('when the cookie is tampered with, signed by another secret, or expired, then there is no session', () => {
    let now = 1_000_000;
    const sessions = new Sessions(tokens, 'secret', () => now);
    const { res, cookies, requestWith } = exchange();
    sessions.start(res, requestWith([]), sessions.prove('admin-secret-0123456789abcdef')!);
    const cookie = cookies.find((c) => c.startsWith('railyard_session='))!;
    expect(sessions.of(requestWith([cookie.replace('ops.', 'dash.')]))).toBeUndefined();
    expect(new Sessions(tokens, 'other', () => now).of(requestWith([cookie]))).toBeUndefined();
    now += 13 * 3_600_000;
    expect(sessions.of(requestWith([cookie]))).toBeUndefined();
  });

  it('when a form carries the CSRF token of another session or none, then it is refused', () => {
    const sessions = new Sessions(tokens, 'secret');
    expect(sessions.checkCsrf('a', sessions.csrfFor('a'))).toBe(true);
    expect(sessions.checkCsrf('a', sessions.csrfFor('b'))).toBe(false);
    expect(sessions.checkCsrf('a', undefined)).toBe(false);
    expect(sessions.checkCsrf('a', ['x'])).toBe(false);
  });
});
