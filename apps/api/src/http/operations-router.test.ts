import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { createLogger } from '@railyard/observability';
import { errorHandler, notFoundHandler } from './errors';
import { JsonText } from './json-text';
import { operationOf } from './operation';
import { operationsRouter } from './operations-router';

const TOKEN = 'writer-secret-0123456789abcdef';
const deps = { tokens: new TokenRegistry(parseTokenList(`ci:${TOKEN}:write`)), greeting: 'hello' };
const operation = operationOf<typeof deps>();
const doc = { operationId: 'x', tag: 'T', summary: 's', response: { description: 'd' } };

const echo = operation({
  ...doc,
  method: 'post',
  path: '/v1/echo',
  scope: 'write',
  request: { name: 'Echo', schema: z.object({ name: z.string() }).strict() },
  handle: ({ name }, { deps, actor }) => ({ said: `${deps.greeting} ${name}`, actor }),
});
const operations = [
  echo,
  operation({ ...doc, method: 'get', path: '/open', scope: 'public', handle: () => new JsonText('{"as":"is"}') }),
  operation({
    ...doc,
    method: 'get',
    path: '/logs/{id}',
    scope: 'public',
    handle: (_input, { req, res }) => void res.status(200).type('text').send(`log ${req.params.id}`),
  }),
  operation({
    ...doc,
    method: 'post',
    path: '/fails',
    scope: 'public',
    handle: () => {
      throw new Error('boom');
    },
  }),
];

const app = express()
  .use(operationsRouter(operations, deps))
  .use((_req, res) => void res.status(404).json({ fell: 'through' }))
  .use(errorHandler(createLogger('test')));
const echoAs = (path: string, body: unknown, token = TOKEN) =>
  request(app)
    .post(path)
    .set('x-api-token', token)
    .send(body as object);

describe('operationsRouter', () => {
  it('when a JSON operation is called with a valid body, then its handler gets the parsed body, the deps and the actor', async () => {
    const res = await echoAs('/v1/echo', { name: 'ada' });
    expect([res.status, res.body]).toEqual([200, { said: 'hello ada', actor: 'ci' }]);
  });

  it('when the body breaks the request schema, then 400 names the field and the handler is not run', async () => {
    const res = await echoAs('/v1/echo', { name: 1, extra: true });
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual([
      { field: 'name', message: expect.any(String) },
      { field: 'extra', message: 'unknown field' },
    ]);
  });

  it('when the token is missing or unknown, then 401 before the body is read', async () => {
    expect((await request(app).post('/v1/echo').send({ name: 'ada' })).status).toBe(401);
    expect((await echoAs('/v1/echo', { name: 'ada' }, 'nobody-0123456789abcdef')).body.error.code).toBe('INVALID_TOKEN');
  });

  it('when the path differs in case or ends in one slash, then the operation answers, as express matches routes', async () => {
    expect((await echoAs('/V1/ECHO', { name: 'a' })).status).toBe(200);
    expect((await echoAs('/v1/echo/', { name: 'a' })).status).toBe(200);
    expect((await echoAs('/v1/echo//', { name: 'a' })).body).toEqual({ fell: 'through' });
  });

  it('when a known path is asked with another method, then 405 names the method in Allow, OPTIONS and HEAD included', async () => {
    for (const res of [await request(app).get('/v1/echo'), await request(app).options('/v1/echo'), await request(app).put('/open')]) {
      expect([res.status, res.body.error?.code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    }
    expect((await request(app).head('/v1/echo')).headers.allow).toBe('POST');
    expect((await request(app).delete('/logs/7')).headers.allow).toBe('GET');
  });

  it('when an operation answers JsonText or answers itself, then that answer is sent as it is', async () => {
    const open = await request(app).get('/open');
    expect([open.headers['content-type'], open.text]).toEqual(['application/json; charset=utf-8', '{"as":"is"}']);
    expect((await request(app).head('/open')).status).toBe(200);
    expect((await request(app).get('/logs/7')).text).toBe('log 7');
  });

  it('when the handler throws, then the error reaches the error handler', async () => {
    const res = await request(app).post('/fails');
    expect([res.status, res.body.error.code]).toEqual([500, 'INTERNAL_ERROR']);
  });

  it('when the path is no operation, then the request goes on to what follows', async () => {
    expect((await request(app).post('/nowhere')).body).toEqual({ fell: 'through' });
    const withNotFound = express().use(operationsRouter([echo], deps), notFoundHandler, errorHandler(createLogger('test')));
    expect((await request(withNotFound).get('/logs/7')).body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it("when a request to one of Trunk's paths fits Trunk's schema but Railyard refuses a value, then 422 with the fields; otherwise 400", async () => {
    // Trunk's getQueue takes any string as targetBranch; this one takes only names without a dot.
    const strict = operation({
      ...doc,
      method: 'post',
      path: '/v1/getQueue',
      scope: 'write',
      request: {
        name: 'Q',
        schema: z.object({
          repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }),
          targetBranch: z.string().regex(/^\w+$/),
        }),
      },
      handle: () => ({}),
    });
    const trunkApp = express().use(operationsRouter([strict], deps), errorHandler(createLogger('test', 'silent')));
    const repo = { host: 'h', owner: 'o', name: 'n' };
    const valueRefused = await request(trunkApp).post('/v1/getQueue').set('x-api-token', TOKEN).send({ repo, targetBranch: 'a.b' });
    expect([valueRefused.status, valueRefused.body.error.code, valueRefused.body.error.fields[0].field]).toEqual([
      422,
      'VALIDATION_FAILED',
      'targetBranch',
    ]);
    const shapeRefused = await request(trunkApp).post('/v1/getQueue').set('x-api-token', TOKEN).send({ repo });
    expect([shapeRefused.status, shapeRefused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});
