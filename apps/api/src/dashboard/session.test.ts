import type { Request, Response } from 'express';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { MemoryBlobStore } from '@railyard/eventstore';
import { Sessions } from './session';
import { blobRevocations } from './session-revocations';

const tokens = new TokenRegistry(parseTokenList('ops:admin-secret-0123456789abcdef:admin,dash:read-secret-0123456789abcdef:read'));

/** The Set-Cookie values a response got, and a request carrying them back. */
const exchange = () => {
  const cookies: string[] = [];
  const res = { append: (_name: string, value: string) => cookies.push(value) } as unknown as Response;
  const requestWith = (jar: string[], secure = false): Request =>
    ({ secure, headers: { cookie: jar.map((c) => c.split(';')[0]).join('; ') } }) as unknown as Request;
  return { res, cookies, requestWith };
};

describe('dashboard sessions', () => {
  it('when a token signs in, then the cookie is HttpOnly, SameSite=Strict, names the token without its secret, and identifies the session', async () => {
    const sessions = new Sessions(tokens, 'secret');
    const { res, cookies, requestWith } = exchange();
    sessions.start(res, requestWith([]), sessions.prove('read-secret-0123456789abcdef')!);
    const cookie = cookies.find((c) => c.startsWith('railyard_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain('read-secret');
    await expect(sessions.of(requestWith([cookie]))).resolves.toMatchObject({ name: 'dash', scope: 'read' });
  });

  it('when the cookie is tampered with, signed by another secret, or expired, then there is no session', async () => {
    let now = 1_000_000;
    const sessions = new Sessions(tokens, 'secret', { now: () => now });
    const { res, cookies, requestWith } = exchange();
    sessions.start(res, requestWith([]), sessions.prove('admin-secret-0123456789abcdef')!);
    const cookie = cookies.find((c) => c.startsWith('railyard_session='))!;
    await expect(sessions.of(requestWith([cookie]))).resolves.toMatchObject({ name: 'ops' });
    await expect(sessions.of(requestWith([cookie.replace('ops.', 'dash.')]))).resolves.toBeUndefined();
    await expect(new Sessions(tokens, 'other', { now: () => now }).of(requestWith([cookie]))).resolves.toBeUndefined();
    now += 13 * 3_600_000;
    await expect(sessions.of(requestWith([cookie]))).resolves.toBeUndefined();
  });

  it('when the token keeps its name but gets another secret, then the sessions it opened end, and the new secret signs in anew', async () => {
    const before = new Sessions(tokens, 'secret');
    const { res, cookies, requestWith } = exchange();
    before.start(res, requestWith([]), before.prove('read-secret-0123456789abcdef')!);
    const cookie = cookies.find((c) => c.startsWith('railyard_session='))!;
    const rotated = new TokenRegistry(parseTokenList('ops:admin-secret-0123456789abcdef:admin,dash:rotated-secret-0123456789abcd:read'));
    const after = new Sessions(rotated, 'secret');

    await expect(after.of(requestWith([cookie]))).resolves.toBeUndefined();
    const fresh = exchange();
    after.start(fresh.res, requestWith([]), after.prove('rotated-secret-0123456789abcd')!);
    const renewed = fresh.cookies.find((c) => c.startsWith('railyard_session='))!;
    await expect(after.of(requestWith([renewed]))).resolves.toMatchObject({ name: 'dash' });
  });

  it('when a session signs out, then a copy of its cookie opens nothing, on another replica or after a restart, and other sessions go on', async () => {
    const blobs = new MemoryBlobStore();
    const replica = () => new Sessions(tokens, 'secret', { revocations: blobRevocations(blobs) });
    const first = replica();
    const { res, cookies, requestWith } = exchange();
    first.start(res, requestWith([]), first.prove('read-secret-0123456789abcdef')!);
    first.start(res, requestWith([]), first.prove('read-secret-0123456789abcdef')!);
    const [leaving, staying] = cookies.filter((c) => c.startsWith('railyard_session=')) as [string, string];

    await first.end(res, requestWith([leaving]), await first.of(requestWith([leaving])));

    expect(cookies.at(-1)).toMatch(/^railyard_session=;.*Max-Age=0/);
    await expect(first.of(requestWith([leaving]))).resolves.toBeUndefined();
    await expect(replica().of(requestWith([leaving]))).resolves.toBeUndefined();
    await expect(replica().of(requestWith([staying]))).resolves.toMatchObject({ name: 'dash' });
  });

  it('when the request came over TLS, or the setting says always, then the cookies are Secure; otherwise not', () => {
    const secureOf = (sessions: Sessions, tls: boolean) => {
      const { res, cookies, requestWith } = exchange();
      sessions.start(res, requestWith([], tls), sessions.prove('read-secret-0123456789abcdef')!);
      return cookies.map((c) => /; Secure/.test(c));
    };
    expect(secureOf(new Sessions(tokens, 'secret'), false)).toEqual([false, false]);
    expect(secureOf(new Sessions(tokens, 'secret'), true)).toEqual([true, true]);
    expect(secureOf(new Sessions(tokens, 'secret', { secureCookies: 'always' }), false)).toEqual([true, true]);
  });

  it('when a form carries the CSRF token of another session or none, then it is refused', () => {
    const sessions = new Sessions(tokens, 'secret');
    expect(sessions.checkCsrf('a', sessions.csrfFor('a'))).toBe(true);
    expect(sessions.checkCsrf('a', sessions.csrfFor('b'))).toBe(false);
    expect(sessions.checkCsrf('a', undefined)).toBe(false);
    expect(sessions.checkCsrf('a', ['x'])).toBe(false);
  });
});
