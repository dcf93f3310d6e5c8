import express from 'express';
import request from 'supertest';
import { createLogger } from '@railyard/observability';
import { errorHandler } from '../http/errors';
import { rateLimit } from './rate-limit';

const appWith = (perSecond: number, clock: { t: number }) => {
  const app = express();
  app.use((req, res, next) => {
    res.locals.actor = req.header('x-who') ?? 'anon';
    next();
  });
  app.get(
    '/',
    rateLimit(perSecond, () => clock.t),
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  app.use(errorHandler(createLogger('test', 'silent')));
  return app;
};

describe('rateLimit', () => {
  it('when a token goes over its rate, then 429 with Retry-After, while another token is unaffected', async () => {
    const clock = { t: 0 };
    const app = appWith(2, clock);
    expect((await request(app).get('/').set('x-who', 'a')).status).toBe(200);
    expect((await request(app).get('/').set('x-who', 'a')).status).toBe(200);
    const over = await request(app).get('/').set('x-who', 'a');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await request(app).get('/').set('x-who', 'b')).status).toBe(200);
  });

  it('when time passes, then the bucket refills', async () => {
    const clock = { t: 0 };
    const app = appWith(1, clock);
    expect((await request(app).get('/')).status).toBe(200);
    expect((await request(app).get('/')).status).toBe(429);
    clock.t = 1000;
    expect((await request(app).get('/')).status).toBe(200);
  });

  it('when the limit is 0, then nothing is limited', async () => {
    const app = appWith(0, { t: 0 });
    for (let i = 0; i < 20; i++) expect((await request(app).get('/')).status).toBe(200);
  });
});
