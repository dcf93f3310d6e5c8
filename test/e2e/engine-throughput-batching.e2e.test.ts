import {
  NO_FAIL_CHECK,
  TOKENS,
  checkMergeInvariants,
  client,
  configureCi,
  filesOnMain,
  mainLog,
  makeWorld,
  openPrWithFile,
  prReaches,
  queueEvents,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(180_000);

interface Setup {
  world: World;
  server: RunningProcess;
  admin: ReturnType<typeof client>;
  ci: ReturnType<typeof client>;
}
let current: Setup | undefined;

const setup = async (queue: object, checks: Record<string, string>): Promise<Setup> => {
  const world = await makeWorld();
  await configureCi(world, checks);
  const server = await startEmbedded(world);
  current = { world, server, admin: client(server.url, TOKENS.admin), ci: client(server.url, TOKENS.write) };
  expect((await current.admin.createQueue({ ...queue, state: 'paused' })).status).toBe(200);
  return current;
};
afterEach(async () => {
  await current?.server.stop();
  await current?.world.cleanup();
  current = undefined;
});

const TERMINAL = ['merged', 'failed', 'cancelled'];
type Ev = { type: string; data: Record<string, unknown> };
const reasonsOf = (events: Ev[], type: string, pr: number): unknown[] =>
  events.filter((e) => e.type === type && e.data.prNumber === pr).map((e) => e.data.reason);
const runsStarted = (events: Ev[]): Ev[] => events.filter((e) => e.type === 'TestRunStarted');

/** Opens PRs 1..n (a FAIL in `bad` ones), submits them while the queue is paused, then runs it: all are pending when the engine first looks. */
const queueUp = async (s: Setup, n: number, bad: number[] = []): Promise<void> => {
  for (let i = 1; i <= n; i++) await openPrWithFile(s.world, i, bad.includes(i) ? 'FAIL\n' : `${i}\n`);
  for (let i = 1; i <= n; i++) expect((await s.ci.submit(i)).status).toBe(200);
  expect((await s.admin.updateQueue({ state: 'running' })).status).toBe(200);
};
const finalStates = (s: Setup, n: number): Promise<string[]> =>
  Promise.all(Array.from({ length: n }, async (_, i) => (await prReaches(s.server.url, i + 1, TERMINAL, 150_000)).state));

describe('batching and bisection over real repositories and processes (reference trunk §4.1, §4.2)', () => {
  it('when a batch of 4 passes, then one run tested them and they merge as 4 commits in queue order, main holding the tested tree', async () => {
    const s = await setup({ batch: true, batchingMinSize: 4 }, { tests: `sleep 0.3; ${NO_FAIL_CHECK}` });
    await queueUp(s, 4);
    expect(await finalStates(s, 4)).toEqual(['merged', 'merged', 'merged', 'merged']);
    expect(mainLog(s.world).slice(0, 4)).toEqual(['PR 4 (#4)', 'PR 3 (#3)', 'PR 2 (#2)', 'PR 1 (#1)']);
    const events = await queueEvents(s.world);
    expect(runsStarted(events).map((e) => e.data.prNumbers)).toEqual([[1, 2, 3, 4]]);
    checkMergeInvariants(events, s.world);
    const batchRun = runsStarted(events)[0]?.data.testRunId;
    expect(events.filter((e) => e.type === 'PrMerged').every((e) => e.data.testRunId === batchRun)).toBe(true);
  });

  it('when one PR of a batch of 4 is bad, then bisection isolates it: only it fails and the other three merge', async () => {
    const s = await setup(
      { batch: true, batchingMinSize: 4, concurrency: 2, bisectionConcurrency: 2 },
      { tests: `sleep 0.3; ${NO_FAIL_CHECK}` },
    );
    await queueUp(s, 4, [3]);
    expect(await finalStates(s, 4)).toEqual(['merged', 'merged', 'failed', 'merged']);
    expect(filesOnMain(s.world)).toEqual(expect.arrayContaining(['f1.txt', 'f2.txt', 'f4.txt']));
    expect(filesOnMain(s.world)).not.toContain('f3.txt');
    const events = await queueEvents(s.world);
    checkMergeInvariants(events, s.world);
    expect(reasonsOf(events, 'PrFailed', 3)).toEqual(['TEST_RUN_REQUIRED_STATUS_FAILED']);
    for (const n of [1, 2, 3, 4]) expect(reasonsOf(events, 'TestsRestarted', n)).toContain('BISECTION_REQUIRED');
    for (const n of [1, 2, 4]) expect(reasonsOf(events, 'TestsRestarted', n)).toContain('BISECTION_TEST_RUN_PASSED');
    const bisectionRuns = runsStarted(events).filter((e) => e.data.bisection === true);
    expect(bisectionRuns.map((e) => e.data.prNumbers)).toEqual(expect.arrayContaining([[1, 2], [3, 4], [3], [4]]));
  });

  it('when redundant tests are skipped, then a passing half convicts the other without its run, down to the culprit', async () => {
    // Halves one after the other (D269) need no slow culprit to order them: a half started beside
    // another would show in the runs started below.
    const check = `sleep 0.3; ${NO_FAIL_CHECK}`;
    const s = await setup(
      // Flake re-runs off: this counts the runs skip-redundant bisection saves when every failure is final
      // (with re-runs, a failure without test results is run again first; docs/engine.md "Flakes").
      { batch: true, batchingMinSize: 4, bisectionConcurrency: 2, optimizationMode: 'bisection_skip_redundant_tests', flakeRetries: 0 },
      { tests: check },
    );
    await queueUp(s, 4, [4]);
    expect(await finalStates(s, 4)).toEqual(['merged', 'merged', 'merged', 'failed']);
    const events = await queueEvents(s.world);
    checkMergeInvariants(events, s.world);
    expect(reasonsOf(events, 'PrFailed', 4)).toEqual(['TEST_RUN_FAILED_BY_OPTIMIZATION']);
    for (const n of [1, 2, 3]) expect(reasonsOf(events, 'PrTestsPassed', n)).toEqual(['PASSED_BY_OPTIMIZATION']);
    // Halves one after the other (D269): the batch, its first half (passes, so 3 and 4 hold the culprit)
    // and PR 3 alone (passes, so PR 4 is the culprit). Nothing ran twice and nothing had to be cancelled.
    expect(events.filter((e) => e.type === 'TestRunCancelled' && e.data.reason === 'BISECTION_SKIP_REDUNDANT')).toHaveLength(0);
    expect(runsStarted(events).map((e) => e.data.prNumbers)).toEqual([[1, 2, 3, 4], [1, 2], [3]]);
  });

  it('when a noBatch PR sits between others, then it is tested alone in its place and the queue order holds on main', async () => {
    const s = await setup({ batch: true, batchingMinSize: 2, concurrency: 3 }, { tests: `sleep 0.3; ${NO_FAIL_CHECK}` });
    for (let i = 1; i <= 5; i++) await openPrWithFile(s.world, i, `${i}\n`);
    for (let i = 1; i <= 5; i++) expect((await s.ci.submit(i, i === 3 ? { noBatch: true } : {})).status).toBe(200);
    expect((await s.admin.updateQueue({ state: 'running' })).status).toBe(200);
    expect(await finalStates(s, 5)).toEqual(['merged', 'merged', 'merged', 'merged', 'merged']);
    expect(mainLog(s.world).slice(0, 5)).toEqual(['PR 5 (#5)', 'PR 4 (#4)', 'PR 3 (#3)', 'PR 2 (#2)', 'PR 1 (#1)']);
    const events = await queueEvents(s.world);
    expect(runsStarted(events).map((e) => [e.data.prNumbers, e.data.dependentPrs])).toEqual([
      [[1, 2], []],
      [[3], [1, 2]],
      [
        [4, 5],
        [1, 2, 3],
      ],
    ]);
    checkMergeInvariants(events, s.world);
  });
});
