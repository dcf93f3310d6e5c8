import { startProcess } from './support/processes';
import { REDIS_URL, dropNamespace, uniqueNamespace } from './support/redis';
import {
  NO_FAIL_CHECK,
  TOKENS,
  checkMergeInvariants,
  client,
  configureCi,
  mainLog,
  makeWorld,
  openPrWithFile,
  prReaches,
  queueEvents,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(180_000);

let world: World;
const namespace = uniqueNamespace('engine');
const processes: RunningProcess[] = [];

const startEngineProcess = (): Promise<RunningProcess> =>
  startProcess(
    'apps/engine/src/main.ts',
    {
      ...world.env,
      RAILYARD_REDIS_URL: REDIS_URL,
      RAILYARD_REDIS_NAMESPACE: namespace,
      RAILYARD_ENGINE_TICK_MS: '200',
      RAILYARD_ENGINE_LEASE_TTL_MS: '2000',
    },
    { listens: false, ready: /"message":"engine started"/ },
  );

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: `sleep 0.2; ${NO_FAIL_CHECK}` });
});
afterAll(async () => {
  for (const p of processes) await p.stop().catch(() => undefined);
  await dropNamespace(namespace);
  await world?.cleanup();
});

describe('the engine as its own processes', () => {
  it('when two engine processes share one queue, then one drives it at a time and every PR merges once; killing the holder hands the queue over', async () => {
    // The API process runs without its embedded engine (the world's default): only the standalone engines act.
    const api = await startProcess('apps/server/src/main.ts', world.env);
    processes.push(api);
    expect((await client(api.url, TOKENS.admin).createQueue({ concurrency: 2 })).status).toBe(200);
    const first = await startEngineProcess();
    const second = await startEngineProcess();
    processes.push(first, second);
    for (let n = 1; n <= 6; n++) await openPrWithFile(world, n, `${n}\n`);
    const ci = client(api.url, TOKENS.write);
    for (let n = 1; n <= 3; n++) await ci.submit(n);
    for (let n = 1; n <= 3; n++) expect((await prReaches(api.url, n, ['merged', 'failed', 'cancelled'])).state).toBe('merged');

    const holder = [first, second].find((p) => p.output().includes('engine took a queue lease'));
    expect(holder).toBeDefined();
    expect([first, second].filter((p) => p.output().includes('engine took a queue lease'))).toHaveLength(1);
    await holder!.kill9();
    for (let n = 4; n <= 6; n++) await ci.submit(n);
    for (let n = 4; n <= 6; n++) expect((await prReaches(api.url, n, ['merged', 'failed', 'cancelled'])).state).toBe('merged');
    const other = holder === first ? second : first;
    expect(other.output()).toContain('engine took a queue lease');

    const events = await queueEvents(world);
    checkMergeInvariants(events, world);
    // Each PR landed once, 1–3 before 4–6. Within a group the order may differ from submission: a PR's
    // mergeability is learned by the engine after submission (docs/engine.md), and a PR not known to
    // be ready yet does not hold back the ready ones behind it (after the failover, PR 5 once landed
    // before PR 4).
    const log = mainLog(world).slice(0, 6);
    expect([...log.slice(0, 3)].sort()).toEqual(['PR 4 (#4)', 'PR 5 (#5)', 'PR 6 (#6)']);
    expect([...log.slice(3, 6)].sort()).toEqual(['PR 1 (#1)', 'PR 2 (#2)', 'PR 3 (#3)']);
  });
});
