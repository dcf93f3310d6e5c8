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
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(900_000);

/**
 * Issue 9, item 3: 64 PRs at concurrency 16 with 16 CI slots, every run's check named `test`, two
 * PRs breaking the build. Sixteen checks of the same name are checked out and run at once, runs are
 * cancelled by the dozen behind each failure and restarted at once: no check may report an
 * infrastructure error, and no good PR may be ejected.
 */
describe('the embedded engine at concurrency 16', () => {
  let world: World;
  let server: RunningProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    await world?.cleanup();
  });

  it('when 64 PRs sharing one check name queue at concurrency 16, then every good PR merges, only the two breaking ones fail, and no infrastructure error happens', async () => {
    world = await makeWorld();
    await configureCi(world, { test: `sleep 0.3; ${NO_FAIL_CHECK}` });
    server = await startEmbedded(world, { RAILYARD_CI_CONCURRENCY: '16' });
    expect((await client(server.url, TOKENS.admin).createQueue({ concurrency: 16 })).status).toBe(200);
    const breaking = new Set([21, 47]);
    for (let n = 1; n <= 64; n++) await openPrWithFile(world, n, breaking.has(n) ? 'FAIL\n' : `${n}\n`);
    const ci = client(server.url, TOKENS.write);
    for (let n = 1; n <= 64; n++) expect((await ci.submit(n)).status).toBe(200);

    const states: Record<number, string> = {};
    for (let n = 1; n <= 64; n++) states[n] = (await prReaches(server.url, n, ['merged', 'failed', 'cancelled'], 600_000)).state;
    const expected = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [i + 1, breaking.has(i + 1) ? 'failed' : 'merged']));
    expect(states).toEqual(expected);

    const events = await queueEvents(world);
    const infrastructureErrors = events.filter((e) => e.type === 'TestRunStatusReported' && e.data.infrastructureError !== undefined);
    expect(infrastructureErrors).toEqual([]);
    expect(events.filter((e) => e.type === 'TestRunStuck')).toEqual([]);
    for (const e of events.filter((x) => x.type === 'PrFailed')) expect(e.data.reason).toBe('TEST_RUN_REQUIRED_STATUS_FAILED');
    checkMergeInvariants(events, world);
    const runs = events.filter((e) => e.type === 'TestRunStarted').length;
    process.stdout.write(`concurrency-16 e2e: 64 PRs, ${runs} runs\n`);
  });
});
