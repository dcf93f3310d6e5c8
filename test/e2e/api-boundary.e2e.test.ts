import http from 'node:http';
import net from 'node:net';
import request from 'supertest';
import { OPERATIONS } from '@railyard/api';
import { REPO } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, type World } from './support/world';

jest.setTimeout(180_000);

const RATE = 5;
const BURST = 15;
const RUN = '7e3c2a10-5b7d-4e1f-9a2b-3c4d5e6f7a8b';
const KEY = { repo: REPO, targetBranch: 'main' };

interface Route {
  name: string;
  send: (token: string) => request.Test;
}
const post = (path: string, body: object) => (token: string) => request(server.url).post(path).set('x-api-token', token).send(body);
const get = (path: string) => (token: string) => request(server.url).get(path).set('x-api-token', token);

/** An operation's path with its parameters' examples in place: `/ci/logs/{testRunId}/{check}` → `/ci/logs/01HZ…/test`. */
const concrete = (op: (typeof OPERATIONS)[number]) =>
  op.path.replace(/\{(\w+)\}/g, (_, name: string) => String(op.parameters?.find((p) => p.name === name)?.example));

/** One request of every operation but /healthz (never limited) and a few variants; each gets a token of its own, so each has its own bucket. */
const ROUTES: Route[] = [
  ...OPERATIONS.filter((op) => !op.unlimited).map((op) => ({
    name: `${op.method.toUpperCase()} ${op.path}`,
    send: op.method === 'get' ? get(concrete(op)) : post(concrete(op), { ...KEY, pr: { number: 1 }, sha: 'a'.repeat(40), testRunId: RUN }),
  })),
  {
    name: 'POST /v1/uploadTestResults (XML)',
    send: (token: string) =>
      request(server.url)
        .post(`/v1/uploadTestResults?repo=git.local/acme/widgets&branch=main&sha=${'a'.repeat(40)}`)
        .set('x-api-token', token)
        .set('content-type', 'application/xml')
        .send('<testsuite name="s"/>'),
  },
  { name: 'POST /v1/noSuchEndpoint', send: post('/v1/noSuchEndpoint', {}) },
];
const tokenOf = (i: number) => `route-${i}-secret-0123456789abcdef`;
// The path-variant cases are not about the limit: each of their requests has a token of its own.
const VARIANT_TOKENS = 12;
const variantToken = (i: number) => `variant-${i}-secret-0123456789abcdef`;
let variantsUsed = 0;
const nextVariantToken = () => variantToken(variantsUsed++);

let world: World;
let server: RunningProcess;

beforeAll(async () => {
  world = await makeWorld();
  const tokens = ROUTES.map((_, i) => `route${i}:${tokenOf(i)}:admin`);
  tokens.push('budget:budget-secret-0123456789abcdef:admin');
  for (let i = 0; i < VARIANT_TOKENS; i++) tokens.push(`variant${i}:${variantToken(i)}:admin`);
  server = await startProcess('apps/server/src/main.ts', {
    ...world.env,
    RAILYARD_API_TOKENS: tokens.join(','),
    RAILYARD_RATE_LIMIT_PER_SECOND: String(RATE),
    RAILYARD_RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: String(RATE),
    RAILYARD_BODY_MIB_IN_FLIGHT: '1',
  });
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

/** Sends `count` requests at once; how many were let through, the 429s, and how long the burst took. */
const burst = async (send: () => Promise<{ status: number; headers: Record<string, unknown>; body?: unknown }>, count = BURST) => {
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: count }, send));
  const seconds = (Date.now() - started) / 1000;
  const limited = answers.filter((a) => a.status === 429);
  return { passed: count - limited.length, limited, seconds };
};

/** At most the burst (one second's worth) plus what refilled while the requests were answered. */
const allowance = (seconds: number) => RATE + Math.ceil(seconds * RATE);

/** A request from another loopback address, so each case of the per-address limit starts with a full bucket. */
const fromAddress = (localAddress: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'GET', localAddress, headers, agent: false },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });

describe('every route is behind the rate limit', () => {
  it.each(ROUTES.map((r, i) => [r.name, i] as const))(
    'when one token sends a burst to %s, then what is over the limit gets 429',
    async (_name, i) => {
      const route = ROUTES[i] as Route;
      const { passed, limited, seconds } = await burst(() => route.send(tokenOf(i)));
      expect(limited.length).toBeGreaterThan(0);
      expect(passed).toBeLessThanOrEqual(allowance(seconds));
      expect(limited[0]?.headers['retry-after']).toMatch(/^\d+$/);
    },
  );

  it('when an unknown token comes in a burst from one address, then its 401s are limited per address', async () => {
    const headers = { 'x-api-token': 'guess-0123456789abcdef' };
    const { passed, limited, seconds } = await burst(() => fromAddress('127.0.0.3', '/v1/getMergeQueueMetrics', headers));
    expect(limited.length).toBeGreaterThan(0);
    expect(passed).toBeLessThanOrEqual(allowance(seconds));
    expect(JSON.parse((limited[0] as { body: string }).body).error.code).toBe('RATE_LIMIT_EXCEEDED');
    // Another address is not held back by this one's bucket.
    expect((await fromAddress('127.0.0.4', '/v1/getMergeQueueMetrics', headers)).status).toBe(401);
  });

  it.each([
    ['no token', {}, '127.0.0.2'],
    ['a malformed token', { 'x-api-token': 'short' }, '127.0.0.8'],
  ])('when %s comes in a burst from one address, then every answer is a 401, never a 429', async (_what, headers, address) => {
    const { limited } = await burst(() => fromAddress(address, '/v1/getMergeQueueMetrics', headers), 3 * BURST);
    expect(limited).toEqual([]);
    expect((await fromAddress(address, '/v1/getMergeQueueMetrics', headers)).status).toBe(401);
  });

  it('when an address guessing tokens asks for unknown paths or the OpenAPI document, then it is limited too', async () => {
    const headers = { 'x-api-token': 'guess-1-0123456789abcdef' };
    expect((await burst(() => fromAddress('127.0.0.5', '/v1/nothing-here', headers))).limited.length).toBeGreaterThan(0);
    expect((await burst(() => fromAddress('127.0.0.6', '/openapi.json', headers))).limited.length).toBeGreaterThan(0);
  });

  it('when /healthz is polled in a burst, then it is never limited', async () => {
    const { limited } = await burst(() => fromAddress('127.0.0.7', '/healthz'), 3 * BURST);
    expect(limited).toEqual([]);
  });
});

/** A raw request whose body is sent only in part, so it stays in flight; resolves with the raw answer, or 'no answer' after 5 s. */
const rawPost = (path: string, token: string, length: number, sent: number) => {
  const socket = net.connect(server.port, '127.0.0.1');
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nx-api-token: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n` +
      ' '.repeat(sent),
  );
  const answer = new Promise<string>((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve('no answer'), 5_000).unref();
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      if (/\r\n\r\n\{.*\}$/s.test(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
  });
  return { socket, answer };
};

describe('request bodies in flight are capped (RAILYARD_BODY_MIB_IN_FLIGHT=1)', () => {
  it('when a body would take the bytes in flight over the cap, then 503 with Retry-After and a JSON error, without waiting for the body', async () => {
    const token = 'budget-secret-0123456789abcdef';
    const held = rawPost('/v1/setImpactedTargets', token, 900 * 1024, 1024);
    // Time for the server to take the first request in, so its bytes are in flight.
    await new Promise((r) => setTimeout(r, 500));
    const over = rawPost('/v1/setImpactedTargets', token, 300 * 1024, 0);
    try {
      const refused = await over.answer;
      expect(refused).toMatch(/^HTTP\/1\.1 503 /);
      expect(refused).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)).error.code).toBe('SERVER_BUSY');
    } finally {
      held.socket.destroy();
      over.socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    const body = JSON.stringify({ ...KEY, pr: { number: 1 }, impactedTargets: ['x'.repeat(300 * 1024)] });
    const after = await request(server.url)
      .post('/v1/setImpactedTargets')
      .set('x-api-token', token)
      .set('content-type', 'application/json')
      .send(body);
    expect(after.status).not.toBe(503);
  });
});

describe('path variants', () => {
  it('when a POST path differs in case or ends in a slash, then it is served as the exact path is', async () => {
    const create = await request(server.url).post('/v1/createQueue').set('x-api-token', nextVariantToken()).send(KEY);
    expect(create.status).toBe(200);
    for (const path of ['/v1/getQueue', '/v1/getQueue/', '/v1/GetQueue', '/v1/GETQUEUE/']) {
      const res = await request(server.url).post(path).set('x-api-token', nextVariantToken()).send(KEY);
      expect([path, res.status, res.body.branch]).toEqual([path, 200, 'main']);
    }
    const listed = await request(server.url)
      .post('/v1/flaky-tests/List-Quarantined-Tests/')
      .set('x-api-token', nextVariantToken())
      .send({ repo: REPO, org_url_slug: 'railyard', page_query: { page_size: 10 } });
    expect(listed.status).toBe(200);
  });

  it('when a variant is asked with the wrong method, then 405 names POST; an unknown path is a 404 JSON error', async () => {
    const wrong = await request(server.url).get('/v1/GetQueue/').set('x-api-token', nextVariantToken());
    expect([wrong.status, wrong.headers.allow, wrong.body.error.code]).toEqual([405, 'POST', 'METHOD_NOT_ALLOWED']);
    const unknown = await request(server.url).post('/v1/getQueues').set('x-api-token', nextVariantToken()).send(KEY);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });
});
