import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { client } from './support/client';
import { eventually } from './support/engine-world';
import { RAILYARD_BIN, ROOT, startProcess, type RunningProcess } from './support/processes';
import { dropNamespace, REDIS_URL, uniqueNamespace } from './support/redis';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);
const run = promisify(execFile);

let world: World;
let env: NodeJS.ProcessEnv;
const namespace = uniqueNamespace('dist');
const running: RunningProcess[] = [];

const projector = async () => {
  const p = await startProcess('apps/projector/src/main.ts', env, { listens: false, ready: /"message":"projector subscribing"/ });
  running.push(p);
  return p;
};
const api = async () => {
  const p = await startProcess('apps/api/src/main.ts', env);
  running.push(p);
  return p;
};

beforeAll(async () => {
  world = await makeWorld();
  for (let n = 1; n <= 24; n++) await world.openFeaturePr(n);
  env = {
    ...world.env,
    RAILYARD_REDIS_URL: REDIS_URL,
    RAILYARD_REDIS_NAMESPACE: namespace,
    RAILYARD_SQLITE_FILE: path.join(world.dataDir, 'events.sqlite'),
    RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS: '1500',
    // A killed projector's lease must run out quickly for its successor to take over within the test.
    RAILYARD_PROJECTOR_LEASE_TTL_MS: '2000',
  };
});
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await dropNamespace(namespace);
  await world?.cleanup();
});

describe('the distributed shape: API and projector as separate processes', () => {
  let proj: RunningProcess;
  let api1: RunningProcess;
  let api2: RunningProcess;

  it('when two API processes take writes at once, then every write is kept once and either replica reads it at once', async () => {
    proj = await projector();
    [api1, api2] = await Promise.all([api(), api()]);
    const a = client(api1.url, TOKENS.admin);
    const b = client(api2.url, TOKENS.admin);
    expect((await a.createQueue()).status).toBe(200);
    expect((await b.getQueue()).status).toBe(200);

    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).submit(i + 1)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    // Read your writes: the answer of a write came only after the models held it, on either replica.
    for (const r of answers) expect((await (r.body.prNumber % 2 ? a : b).getPr(r.body.prNumber)).body.id).toBe(r.body.id);
    const listed = (await a.getQueue()).body.enqueuedPullRequests.map((p: { number: number }) => p.number);
    expect([...listed].sort((x: number, y: number) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('when the projector is killed, then once its lease runs out writes fail fast and reads still answer; when it is back, both recover', async () => {
    await proj.kill9();
    const a = client(api1.url, TOKENS.write);
    // Until its lease runs out (RAILYARD_PROJECTOR_LEASE_TTL_MS) a dead projector looks like a slow one.
    await eventually('the API to see no projector', async () =>
      (await request(api1.url).get('/readyz')).status === 503 ? true : undefined,
    );
    const refused = await a.submit(21);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('PROJECTOR_UNAVAILABLE');
    expect((await a.getPr(20)).body).toMatchObject({ prNumber: 20, state: 'pending' });
    proj = await projector();
    await eventually('the API to be ready again', async () => ((await request(api2.url).get('/readyz')).status === 200 ? true : undefined));
    const res = await a.submit(21);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ prNumber: 21, state: 'pending' });
    expect((await client(api2.url, TOKENS.read).getPr(21)).body.id).toBe(res.body.id);
  });

  it('when the read models are rebuilt from position 0 with the CLI, then they answer as before', async () => {
    const a = client(api1.url, TOKENS.read);
    const before = (await a.getQueue()).body;
    const scrape = async () =>
      (await request(api1.url).get('/v1/getMergeQueueMetrics').set('x-api-token', TOKENS.read)).text
        .split('\n')
        .filter((l) => l.startsWith('mq_'))
        .join('\n');
    const metricsBefore = await scrape();
    expect(metricsBefore).toContain('mq_depth_current');
    await proj.stop();
    const { stdout } = await run(process.execPath, [RAILYARD_BIN, 'projections', 'rebuild'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
    expect(result).toMatchObject({ rebuilt: true, namespace });
    expect(Object.keys(result.projections).sort()).toEqual(['metrics', 'readmodels', 'testhealth']);
    expect(result.events).toBeGreaterThanOrEqual(22);
    expect((await a.getQueue()).body).toEqual(before);
    expect(await scrape()).toEqual(metricsBefore);
    proj = await projector();
  });
});
