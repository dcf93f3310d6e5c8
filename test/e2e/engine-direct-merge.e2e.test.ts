import { branchSha } from '@railyard/testkit';
import {
  NO_FAIL_CHECK,
  REPO,
  TOKENS,
  checkMergeInvariants,
  client,
  configureCi,
  filesOnMain,
  makeWorld,
  openPrWithFile,
  prReaches,
  queueEvents,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(120_000);

const TERMINAL = ['merged', 'failed', 'cancelled'];

let world: World;
let server: RunningProcess;

// One server and one queue with direct merge always on, which every case leaves empty again: each PR is
// opened on main as it is then, so it is up to date when it enters the empty queue.
beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: NO_FAIL_CHECK, lint: 'true' });
  server = await startEmbedded(world);
  expect((await client(server.url, TOKENS.admin).createQueue({ directMergeMode: 'always' })).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

const headOf = async (n: number): Promise<string> => (await branchSha(world.gitRoot, REPO, `pr-${n}`)) as string;
/** Posts a status with `token` (the write token is named `ci`, the admin token `ops`). */
const report = async (sha: string, context: string, state: 'success' | 'failure', token = TOKENS.write): Promise<void> => {
  expect((await client(server.url, token).post('/setCommitStatus', { repo: REPO, sha, context, state })).status).toBe(200);
};
/** Opens PR `n`, posts `statuses` on its head, submits it and waits until it merged. */
const submitWithHeadStatuses = async (n: number, statuses: Record<string, 'success' | 'failure'>, token = TOKENS.write): Promise<void> => {
  await openPrWithFile(world, n, `${n}\n`);
  const head = await headOf(n);
  for (const [context, state] of Object.entries(statuses)) await report(head, context, state, token);
  expect((await client(server.url, TOKENS.write).submit(n)).status).toBe(200);
  expect((await prReaches(server.url, n, TERMINAL)).state).toBe('merged');
};

/** How PR `n` merged: directly, or from a run of its own. */
const mergedHow = async (n: number): Promise<{ reason: unknown; runs: number }> => {
  const events = await queueEvents(world);
  checkMergeInvariants(events, world);
  const runs = events.filter((e) => e.type === 'TestRunStarted' && (e.data.prNumbers as number[]).includes(n)).length;
  return { reason: events.find((e) => e.type === 'PrMerged' && e.data.prNumber === n)?.data.reason, runs };
};

describe('direct merge (directMergeMode: always) over real processes', () => {
  it('when no status has reported on the PR head, then the PR goes through a normal run', async () => {
    await openPrWithFile(world, 1, '1\n');
    expect((await client(server.url, TOKENS.write).submit(1)).status).toBe(200);
    expect((await prReaches(server.url, 1, TERMINAL)).state).toBe('merged');
    expect(await mergedHow(1)).toEqual({ reason: 'MERGE_GRAPH_MERGE', runs: 1 });
  });

  it('when a token reports every required check on the PR head, then they do not count (the local CI runs them) and the PR goes through a normal run', async () => {
    await submitWithHeadStatuses(2, { tests: 'success', lint: 'success' });
    expect(await mergedHow(2)).toEqual({ reason: 'MERGE_GRAPH_MERGE', runs: 1 });
  });

  it('when one required status failed on the PR head, then the PR goes through a normal run', async () => {
    await submitWithHeadStatuses(3, { tests: 'success', lint: 'failure' });
    expect(await mergedHow(3)).toEqual({ reason: 'MERGE_GRAPH_MERGE', runs: 1 });
  });

  describe('with an outside CI whose token the queue names (statusReporters)', () => {
    beforeAll(async () => {
      const named = { requiredStatuses: ['external/ci'], statusReporters: { 'external/ci': ['ci'] } };
      expect((await client(server.url, TOKENS.admin).updateQueue(named)).status).toBe(200);
    });

    it('when the named token reports success on the PR head, then it merges directly without a run', async () => {
      await submitWithHeadStatuses(4, { 'external/ci': 'success' });
      expect(await mergedHow(4)).toEqual({ reason: 'MERGE_GRAPH_DIRECT_MERGE', runs: 0 });
      expect(filesOnMain(world)).toContain('f4.txt');
    });

    it('when another token reports success on the PR head, then the PR takes a run, which the named token’s report decides', async () => {
      await openPrWithFile(world, 5, '5\n');
      await report(await headOf(5), 'external/ci', 'success', TOKENS.admin);
      expect((await client(server.url, TOKENS.write).submit(5)).status).toBe(200);
      await prReaches(server.url, 5, ['testing']);
      const started = (await queueEvents(world)).find((e) => e.type === 'TestRunStarted' && (e.data.prNumbers as number[]).includes(5));
      await report(started?.data.testBranchSha as string, 'external/ci', 'success');
      expect((await prReaches(server.url, 5, TERMINAL)).state).toBe('merged');
      expect(await mergedHow(5)).toEqual({ reason: 'MERGE_GRAPH_MERGE', runs: 1 });
    });
  });
});
