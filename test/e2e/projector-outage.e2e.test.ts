import path from 'node:path';
import request from 'supertest';
import { startProcess } from './support/processes';
import { REDIS_URL, dropNamespace, uniqueNamespace } from './support/redis';
import {
  NO_FAIL_CHECK,
  TOKENS,
  client,
  configureCi,
  eventually,
  makeWorld,
  openPrWithFile,
  prReaches,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(240_000);

/** Waiting in the queue, with no engine running: not yet known mergeable, or admitted. */
const QUEUED = ['not_ready', 'pending'];

let world: World;
const namespace = uniqueNamespace('outage');
const processes: RunningProcess[] = [];
let env: NodeJS.ProcessEnv;

const started = (p: RunningProcess): RunningProcess => {
  processes.push(p);
  return p;
};
/** A projector with the given lease TTL (unset: the documented default), ready once it has projected or is on standby. */
const startProjector = (extra: NodeJS.ProcessEnv = {}) =>
  startProcess(
    'apps/projector/src/main.ts',
    { ...env, ...extra },
    { listens: false, ready: /"message":"waiting for the projector lease"/ },
  ).then(started);
const startEngine = () =>
  startProcess(
    'apps/engine/src/main.ts',
    { ...env, RAILYARD_ENGINE_TICK_MS: '200', RAILYARD_ENGINE_LEASE_TTL_MS: '2000' },
    { listens: false, ready: /"message":"engine started"/ },
  ).then(started);

/** The epoch ms of the first log line of `p` with this message, once it is there. */
const loggedAt = (p: RunningProcess, message: string): Promise<number> =>
  eventually(
    `"${message}" from a projector`,
    async () => {
      const line = p
        .output()
        .split('\n')
        .find((l) => l.includes(`"message":"${message}"`));
      return line ? Date.parse((JSON.parse(line) as { timestamp: string }).timestamp) : undefined;
    },
    60_000,
  );
const holding = (p: RunningProcess): boolean => p.output().includes('"message":"projector lease acquired"');

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: NO_FAIL_CHECK });
  for (let n = 1; n <= 4; n++) await openPrWithFile(world, n, `${n}\n`);
  env = {
    ...world.env,
    RAILYARD_REDIS_URL: REDIS_URL,
    RAILYARD_REDIS_NAMESPACE: namespace,
    RAILYARD_SQLITE_FILE: path.join(world.dataDir, 'events.sqlite'),
    RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS: '1000',
  };
});
afterAll(async () => {
  for (const p of processes) await p.stop().catch(() => undefined);
  await dropNamespace(namespace);
  await world?.cleanup();
});

describe('a projector outage in the distributed shape', () => {
  it('when the only projector is killed (-9), then no read denies a PR or queue the store knows, /readyz fails, and writes fail fast with PROJECTOR_UNAVAILABLE', async () => {
    // A long lease, so the writes right after the kill land while the API still counts the projector as alive.
    const projector = await startProjector({ RAILYARD_PROJECTOR_LEASE_TTL_MS: '15000' });
    const api = started(await startProcess('apps/api/src/main.ts', env));
    const admin = client(api.url, TOKENS.admin);
    const ci = client(api.url, TOKENS.write);
    const reader = client(api.url, TOKENS.read);
    expect((await admin.createQueue()).status).toBe(200);
    let engine = await startEngine();
    expect((await ci.submit(1)).status).toBe(200);
    expect((await prReaches(api.url, 1, ['merged', 'failed', 'cancelled'])).state).toBe('merged');
    await engine.stop();
    expect((await ci.submit(2)).status).toBe(200);
    expect((await request(api.url).get('/readyz')).status).toBe(200);

    await projector.kill9();
    // Stored after the projector died: the read models never see these.
    expect((await ci.submit(3)).status).toBe(200);
    expect((await admin.createQueue({}, 'release')).status).toBe(200);

    // The lag limit (10 s) may trip first; the lease running out is what says no projector runs.
    const notReady = await eventually('/readyz to report no projector', async () => {
      const res = await request(api.url).get('/readyz');
      return res.status === 503 && res.body.projector.running === false ? res : undefined;
    });
    expect(notReady.body).toMatchObject({ status: 'not_ready', projector: { running: false } });
    expect(notReady.body.problems.map((p: { code: string }) => p.code)).toContain('PROJECTOR_UNAVAILABLE');
    expect((await request(api.url).get('/healthz')).status).toBe(200);

    // Known PRs, merged and queued, and the queue created after the kill: never "never submitted".
    expect((await reader.getPr(1)).body).toMatchObject({ prNumber: 1, state: 'merged' });
    const two = await reader.getPr(2);
    expect(two.body.prNumber).toBe(2);
    expect(QUEUED).toContain(two.body.state);
    const three = await reader.getPr(3);
    expect(three.status).toBe(200);
    expect(three.body.prNumber).toBe(3);
    expect(QUEUED).toContain(three.body.state);
    const queue = await reader.getQueue();
    expect(queue.status).toBe(200);
    expect(queue.body.enqueuedPullRequests.map((p: { number: number }) => p.number)).toEqual([2, 3]);
    expect((await reader.getQueue('release')).status).toBe(200);
    // What the store does not know is still denied.
    expect((await reader.getPr(4)).body.error.code).toBe('PR_NOT_IN_QUEUE');

    const refused = await ci.submit(4);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('PROJECTOR_UNAVAILABLE');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await reader.getPr(4)).body.error.code).toBe('PR_NOT_IN_QUEUE');

    // The engine works from the store alone: what it merges now is read as merged, not as the models' stale pending.
    engine = await startEngine();
    for (const n of [2, 3]) expect((await prReaches(api.url, n, ['merged', 'failed', 'cancelled'])).state).toBe('merged');
    expect((await reader.getQueue()).body.enqueuedPullRequests).toEqual([]);
    await engine.stop();

    // Two projectors with the default lease: one projects, the other waits; SIGTERM hands over at once.
    const first = await startProjector({});
    await loggedAt(first, 'projector lease acquired');
    const standby = await startProjector({});
    await eventually('the API to be ready again', async () => ((await request(api.url).get('/readyz')).status === 200 ? true : undefined));
    const stoppedAt = Date.now();
    expect(await first.stop()).toBe(0);
    const sigtermTakeoverMs = (await loggedAt(standby, 'projector lease acquired')) - stoppedAt;

    // kill -9 of the holder: the standby takes over once the lease has run out (RAILYARD_PROJECTOR_LEASE_TTL_MS, default 10 s).
    const third = await startProjector({});
    expect(holding(third)).toBe(false);
    const killedAt = Date.now();
    await standby.kill9();
    const killTakeoverMs = (await loggedAt(third, 'projector lease acquired')) - killedAt;
    // Measurements for docs/operations.md; the assertions above are about what happens, not how fast.
    process.stdout.write(`projector takeover: after SIGTERM ${sigtermTakeoverMs} ms, after kill -9 ${killTakeoverMs} ms\n`);

    await eventually('the read models to serve again', async () => {
      const res = await reader.getPr(3);
      return res.body.state === 'merged' && res.headers['x-railyard-read-source'] === undefined ? true : undefined;
    });
    expect((await ci.submit(4)).status).toBe(200);
  });
});
