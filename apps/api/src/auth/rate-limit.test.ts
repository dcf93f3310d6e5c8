import express from 'express';
import request from 'supertest';
import { createLogger } from '@railyard/observability';
import { errorHandler } from '../http/errors';
import { requireToken } from './middleware';
import { rateLimit, type RateLimitOptions } from './rate-limit';
import { parseTokenList, TokenRegistry } from '@railyard/auth';

const A = 'alpha-secret-0123456789';
const B = 'bravo-secret-0123456789';
const tokens = new TokenRegistry(parseTokenList(`a:${A}:read,b:${B}:read`));

/** The limiter in front of a route behind requireToken, as buildApp mounts it; x-forwarded-for stands in for the source address. */
const appWith = (options: Omit<RateLimitOptions, 'tokens' | 'now'>, clock: { t: number }) => {
  const app = express();
  app.use((req, _res, next) => {
    const from = req.header('x-from');
    if (from) Object.defineProperty(req.socket, 'remoteAddress', { value: from, configurable: true });
    next();
  });
  app.use(rateLimit({ ...options, tokens, now: () => clock.t }).middleware);
  app.get('/', requireToken(tokens, 'read'), (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler(createLogger('test', 'silent')));
  return app;
};
const get = (app: express.Express, token?: string, from = '10.0.0.1') => {
  const r = request(app).get('/').set('x-from', from);
  return token ? r.set('x-api-token', token) : r;
};

describe('rateLimit', () => {
  it('when a token goes over its rate, then 429 with Retry-After, while another token is unaffected', async () => {
    const app = appWith({ perToken: 2, perAddress: 0 }, { t: 0 });
    expect((await get(app, A)).status).toBe(200);
    expect((await get(app, A)).status).toBe(200);
    const over = await get(app, A);
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.body.error).toEqual({ code: 'RATE_LIMIT_EXCEEDED', message: 'token "a" is over 2 requests per second' });
    expect((await get(app, B)).status).toBe(200);
  });

  it('when time passes, then the bucket refills', async () => {
    const clock = { t: 0 };
    const app = appWith({ perToken: 1, perAddress: 0 }, clock);
    expect((await get(app, A)).status).toBe(200);
    expect((await get(app, A)).status).toBe(429);
    clock.t = 1000;
    expect((await get(app, A)).status).toBe(200);
  });

  it('when both limits are 0, then nothing is limited', async () => {
    const app = appWith({ perToken: 0, perAddress: 0 }, { t: 0 });
    for (let i = 0; i < 20; i++) {
      expect((await get(app, A)).status).toBe(200);
      expect((await get(app)).status).toBe(401);
    }
  });

  it('when an address guesses tokens, then its 401s count against the address until it gets 429s, and other addresses are unaffected', async () => {
    const app = appWith({ perToken: 0, perAddress: 3 }, { t: 0 });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await get(app, `guess-${i}-0123456789abcdef`, '10.0.0.7')).status);
    expect(answers).toEqual([401, 401, 401, 429, 429, 429]);
    const over = await get(app, 'guess-9-0123456789abcdef', '10.0.0.7');
    expect(over.body.error.message).toBe('10.0.0.7 (failing authentication) is over 3 requests per second');
    expect((await get(app, 'guess-9-0123456789abcdef', '10.0.0.8')).status).toBe(401);
  });

  it('when an address sends many requests without a token, then every one is a 401, never a 429, and they do not count', async () => {
    const app = appWith({ perToken: 0, perAddress: 2 }, { t: 0 });
    for (let i = 0; i < 30; i++) {
      const res = await get(app, undefined, '10.0.0.5');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('AUTHENTICATION_REQUIRED');
    }
    expect((await get(app, 'guess-0-0123456789abcdef', '10.0.0.5')).status).toBe(401);
  });

  it('when an address sends malformed tokens, then every one is a 401 naming it malformed, never a 429', async () => {
    const app = appWith({ perToken: 0, perAddress: 2 }, { t: 0 });
    for (const token of ['short', 'x'.repeat(2000), 'name:secret-0123456789abcdef:read', ...Array.from({ length: 10 }, () => 'tiny')]) {
      const res = await get(app, token, '10.0.0.6');
      expect(res.status).toBe(401);
      expect(res.body.error.message).toContain('malformed');
    }
  });

  it('when the same address then presents a valid token, then the token is counted, not the address', async () => {
    const app = appWith({ perToken: 0, perAddress: 1 }, { t: 0 });
    expect((await get(app, 'guess-1-0123456789abcdef', '10.0.0.9')).status).toBe(401);
    expect((await get(app, 'guess-2-0123456789abcdef', '10.0.0.9')).status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await get(app, A, '10.0.0.9')).status).toBe(200);
  });

  it('when more addresses than it tracks are over their limit, then a new one is refused until the buckets refill', async () => {
    const clock = { t: 0 };
    const app = appWith({ perToken: 0, perAddress: 1, maxAddresses: 2 }, clock);
    const guess = 'guess-3-0123456789abcdef';
    expect((await get(app, guess, '10.1.0.1')).status).toBe(401);
    expect((await get(app, guess, '10.1.0.2')).status).toBe(401);
    expect((await get(app, guess, '10.1.0.3')).status).toBe(429);
    clock.t = 2000;
    expect((await get(app, guess, '10.1.0.3')).status).toBe(401);
  });

  it('when a way in other than the header fails authentication, then it counts against the address like a wrong token', () => {
    const limiter = rateLimit({ perToken: 0, perAddress: 2, tokens, now: () => 0 });
    const req = { socket: { remoteAddress: '10.2.0.1' }, headers: {} } as unknown as Parameters<typeof limiter.authenticationWait>[0];
    expect(limiter.authenticationWait(req)).toBe(0);
    limiter.authenticationFailed(req);
    expect(limiter.authenticationWait(req)).toBe(0);
    limiter.authenticationFailed(req);
    expect(limiter.authenticationWait(req)).toBe(1);
  });
});
