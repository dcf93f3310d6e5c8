import path from 'node:path';
import { startProcess, type RunningProcess } from './support/processes';
import { REDIS_URL, dropNamespace, uniqueNamespace } from './support/redis';
import {
  NO_FAIL_CHECK,
  TOKENS,
  checkMergeInvariants,
  client,
  configureCi,
  makeWorld,
  openPrWithFile,
  prReaches,
  queueEvents,
  sleep,
  type World,
} from './support/engine-world';

jest.setTimeout(600_000);

/**
 * Issue 9, proof (d): a rolling restart of every process of the distributed shape (two engines, the
 * projector, the API), one after the other with SIGTERM, while 20 PRs are queued. Every good PR
 * merges; only the two that break the build fail.
 */
describe('a rolling restart of the distributed shape', () => {
  let world: World;
  const namespace = uniqueNamespace('rolling');
  const running = new Set<RunningProcess>();
  let env: NodeJS.ProcessEnv;

  afterAll(async () => {
    await Promise.all([...running].map((p) => p.stop().catch(() => undefined)));
    await dropNamespace(namespace);
    await world?.cleanup();
  });

  const start = async (role: 'api' | 'projector' | 'engine'): Promise<RunningProcess> => {
    const p =
      role === 'api'
        ? await startProcess('apps/api/src/main.ts', env)
        : role === 'projector'
          ? await startProcess('apps/projector/src/main.ts', env, { listens: false, ready: /"message":"projector subscribing"/ })
          : await startProcess('apps/engine/src/main.ts', env, { listens: false, ready: /"message":"engine started"/ });
    running.add(p);
    return p;
  };
  const restart = async (p: RunningProcess, role: 'api' | 'projector' | 'engine'): Promise<RunningProcess> => {
    expect(await p.stop()).toBe(0);
    running.delete(p);
    return start(role);
  };

  it('when every process is restarted in turn while 20 PRs are queued, then every good PR merges and none fails for the restarts', async () => {
    world = await makeWorld();
    env = {
      ...world.env,
      RAILYARD_REDIS_URL: REDIS_URL,
      RAILYARD_REDIS_NAMESPACE: namespace,
      RAILYARD_SQLITE_FILE: path.join(world.dataDir, 'events.sqlite'),
      RAILYARD_PROJECTOR_LEASE_TTL_MS: '3000',
      RAILYARD_ENGINE_LEASE_TTL_MS: '4000',
      RAILYARD_ENGINE_TICK_MS: '500',
      RAILYARD_CI_CONCURRENCY: '4',
    };
    await configureCi(world, { tests: `sleep 1.5; ${NO_FAIL_CHECK}` });
    const breaking = new Set([7, 15]);
    for (let n = 1; n <= 20; n++) await openPrWithFile(world, n, breaking.has(n) ? 'FAIL\n' : `${n}\n`);

    let projector = await start('projector');
    let api = await start('api');
    const engines = [await start('engine'), await start('engine')];
    expect((await client(api.url, TOKENS.admin).createQueue({ concurrency: 4 })).status).toBe(200);
    for (let n = 1; n <= 20; n++) expect((await client(api.url, TOKENS.write).submit(n)).status).toBe(200);
    await prReaches(api.url, 1, ['testing', 'tests_passed', 'merged']);

    // Each process in turn, while checks run: both engines, then the projector, then the API.
    for (let i = 0; i < engines.length; i++) {
      engines[i] = await restart(engines[i] as RunningProcess, 'engine');
      await sleep(2000);
    }
    projector = await restart(projector, 'projector');
    await sleep(2000);
    api = await restart(api, 'api');

    const states: Record<number, string> = {};
    for (let n = 1; n <= 20; n++) states[n] = (await prReaches(api.url, n, ['merged', 'failed', 'cancelled'], 300_000)).state;
    expect(states).toEqual(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [i + 1, breaking.has(i + 1) ? 'failed' : 'merged'])));
    const events = await queueEvents(world);
    for (const e of events.filter((x) => x.type === 'PrFailed')) {
      expect(breaking.has(e.data.prNumber as number)).toBe(true);
      expect(e.data.reason).toBe('TEST_RUN_REQUIRED_STATUS_FAILED');
    }
    checkMergeInvariants(events, world);
    void projector;
  });
});
