import {
  TOKENS,
  client,
  configureCi,
  makeWorld,
  openPrWithFile,
  prReaches,
  queueEvents,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

// testingTimeoutMinutes is whole minutes (at least 1), so this suite waits a real minute.
jest.setTimeout(180_000);

let world: World;
let server: RunningProcess;

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: 'sleep 150' });
  server = await startEmbedded(world);
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('test run timeouts', () => {
  it('when the checks outlast testingTimeoutMinutes, then the run times out and the PR fails with TEST_RUN_TIMEOUT', async () => {
    expect((await client(server.url, TOKENS.admin).createQueue({ testingTimeoutMinutes: 1 })).status).toBe(200);
    await openPrWithFile(world, 1, '1\n');
    await client(server.url, TOKENS.write).submit(1);
    expect((await prReaches(server.url, 1, ['merged', 'failed', 'cancelled'], 120_000)).state).toBe('failed');
    const events = await queueEvents(world);
    expect(events.filter((e) => e.type === 'TestRunTimedOut')).toHaveLength(1);
    expect(events.find((e) => e.type === 'PrFailed')?.data).toMatchObject({ reason: 'TEST_RUN_TIMEOUT' });
  });
});
