import { commitOnBranch, openPr } from '@railyard/testkit';
import {
  NO_FAIL_CHECK,
  TOKENS,
  addRepo,
  checkMergeInvariants,
  client,
  configureCi,
  eventually,
  filesOnMain,
  mainLog,
  makeWorld,
  openPrWithFile,
  prReaches,
  queueEvents,
  type Pr,
  sleep,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';
import { checkGate } from './support/check-gate';

jest.setTimeout(120_000);

interface Setup {
  world: World;
  server: RunningProcess;
  admin: ReturnType<typeof client>;
  ci: ReturnType<typeof client>;
  /** The PR of this test's repository once its state is one of `states`. */
  reaches: (number: number, states: string[]) => Promise<Pr>;
}

// One embedded server for the file: a server start costs seconds of CPU, and a test needs a queue and
// repository of its own, not a process of its own. Each test gets a fresh repository (and so queue),
// CI config and PR numbers from 1, so scenarios do not see each other's queue; what the server
// carries over from earlier tests is other repositories' queues, as a real server would.
let shared: { world: World; server: RunningProcess } | undefined;
let repos = 0;
beforeAll(async () => {
  const world = await makeWorld();
  shared = { world, server: await startEmbedded(world) };
});
afterAll(async () => {
  await shared?.server.stop();
  await shared?.world.cleanup();
});

const setup = async (queue: object, checks: Record<string, string> = { tests: NO_FAIL_CHECK }): Promise<Setup> => {
  if (!shared) throw new Error('the shared server did not start');
  const { server } = shared;
  const world = await addRepo(shared.world, `widgets-${++repos}`);
  await configureCi(world, checks);
  const s: Setup = {
    world,
    server,
    admin: client(server.url, TOKENS.admin, world.repo),
    ci: client(server.url, TOKENS.write, world.repo),
    reaches: (number, states) => prReaches(server.url, number, states, 60_000, world.repo),
  };
  expect((await s.admin.createQueue(queue)).status).toBe(200);
  return s;
};

const TERMINAL = ['merged', 'failed', 'cancelled'];
type QueueEvent = Awaited<ReturnType<typeof queueEvents>>[number];
/** Resolves once the queue of `s` recorded an event `matches` accepts. */
const eventsReach = (s: Setup, what: string, matches: (e: QueueEvent) => boolean): Promise<true> =>
  eventually(what, async () => ((await queueEvents(s.world)).some(matches) ? true : undefined), 60_000);
/** Lets a check go on once the test has acted on the run it holds up (support/check-gate.ts). */
const testActed = checkGate('the test acted on the running check');
const reasonsOf = (events: { type: string; data: Record<string, unknown> }[], type: string, pr: number): unknown[] =>
  events.filter((e) => e.type === type && e.data.prNumber === pr).map((e) => e.data.reason);

/** Submits while the queue is paused, then resumes: every PR is waiting when the engine first looks. */
const submitAllThenResume = async (s: Setup, numbers: number[]): Promise<void> => {
  for (const n of numbers) expect((await s.ci.submit(n)).status).toBe(200);
  expect((await s.admin.updateQueue({ state: 'running' })).status).toBe(200);
};

describe('the merge engine over a real repository and processes', () => {
  it('when 5 PRs run at concurrency 3, then all merge in queue order and each merge holds a tested tree', async () => {
    const s = await setup({ concurrency: 3, state: 'paused' }, { tests: `sleep 0.3; ${NO_FAIL_CHECK}` });
    for (let n = 1; n <= 5; n++) await openPrWithFile(s.world, n, `${n}\n`);
    await submitAllThenResume(s, [1, 2, 3, 4, 5]);
    for (let n = 1; n <= 5; n++) expect((await s.reaches(n, TERMINAL)).state).toBe('merged');
    expect(mainLog(s.world).slice(0, 5)).toEqual(['PR 5 (#5)', 'PR 4 (#4)', 'PR 3 (#3)', 'PR 2 (#2)', 'PR 1 (#1)']);
    const events = await queueEvents(s.world);
    checkMergeInvariants(events, s.world);
    const started = events.filter((e) => e.type === 'TestRunStarted').map((e) => e.data.dependentPrs);
    expect(started.slice(0, 3)).toEqual([[], [1], [1, 2]]);
  });

  it('when the PR in the middle fails, then only it is ejected and the PRs behind go on without it and merge', async () => {
    const s = await setup({ concurrency: 3, state: 'paused' }, { tests: `sleep 0.3; ${NO_FAIL_CHECK}` });
    for (let n = 1; n <= 5; n++) await openPrWithFile(s.world, n, n === 3 ? 'FAIL\n' : `${n}\n`);
    await submitAllThenResume(s, [1, 2, 3, 4, 5]);
    const states = await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await s.reaches(n, TERMINAL)).state));
    expect(states).toEqual(['merged', 'merged', 'failed', 'merged', 'merged']);
    expect(filesOnMain(s.world)).toEqual(expect.arrayContaining(['f1.txt', 'f2.txt', 'f4.txt', 'f5.txt']));
    expect(filesOnMain(s.world)).not.toContain('f3.txt');
    const events = await queueEvents(s.world);
    checkMergeInvariants(events, s.world);
    expect(reasonsOf(events, 'PrFailed', 3)).toEqual(['TEST_RUN_REQUIRED_STATUS_FAILED']);
    // Its re-run goes on beside the queue (docs/engine.md, Flakes): the PRs behind restart without it if
    // they had stacked it, or start without it if they had not started yet; that depends on timing. A PR
    // behind whose own failure (PR 3 under it) is recorded before PR 3's is re-run beside too, until PR 3's
    // verdict restarts it without PR 3: that order is timing as well (it failed this test once at load 15).
    const restartedBehind = [4, 5].flatMap((n) => reasonsOf(events, 'TestsRestarted', n));
    expect(restartedBehind.filter((r) => r !== 'PREREQUISITE_MERGE_ITEM_FAILED' && r !== 'FLAKE_RETRY')).toEqual([]);
  });

  // The check fails on PR 1 alone and passes once PR 2 is stacked on it: a failure the successor disproves.
  // PR 1 alone fails at once; every other run passes only once the test has seen that failure recorded,
  // so the failure comes first however the runs' starts are delayed on a busy machine (a 3 s sleep in
  // the other runs was outrun under load, issue 30).
  const failureSeen = checkGate('the run of PR 1 alone failed');
  const FLAKE_ON_ONE_ALONE = `if [ -f f1.txt ] && [ ! -f f2.txt ]; then exit 1; fi; ${failureSeen.wait}`;

  /** PRs 1 and 2 submitted while paused under FLAKE_ON_ONE_ALONE: the states they end in and the queue's events. */
  const twoOverAFlake = async (queue: object) => {
    const s = await setup({ ...queue, state: 'paused' }, { tests: FLAKE_ON_ONE_ALONE });
    await openPrWithFile(s.world, 1, '1\n');
    await openPrWithFile(s.world, 2, '2\n');
    await submitAllThenResume(s, [1, 2]);
    await eventsReach(s, 'the run of PR 1 alone to fail', (e) => e.type === 'TestRunFailed');
    failureSeen.open(s.world);
    const states = [(await s.reaches(1, TERMINAL)).state, (await s.reaches(2, TERMINAL)).state];
    return { s, states, events: await queueEvents(s.world) };
  };

  it('when pendingFailureDepth is 1 and merging is optimistic, then a passing successor clears the failure and both merge', async () => {
    const { states, events } = await twoOverAFlake({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    expect(states).toEqual(['merged', 'merged']);
    expect(events.filter((e) => e.type === 'PrPendingFailure').map((e) => e.data.prNumber)).toEqual([1]);
    expect(reasonsOf(events, 'PrTestsPassed', 1)).toEqual(['SUCCESSOR_TEST_RUN_PASSED']);
  });

  it('when anti-flake protection is on and the PR failed while it tested alone, then the next PR tests with it stacked and clears it', async () => {
    const { s, states, events } = await twoOverAFlake({ concurrency: 1, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    expect(states).toEqual(['merged', 'merged']);
    checkMergeInvariants(events, s.world);
    expect(events.filter((e) => e.type === 'TestRunStarted').map((e) => e.data.dependentPrs)).toEqual([[], [1]]);
    expect(reasonsOf(events, 'PrTestsPassed', 1)).toEqual(['SUCCESSOR_TEST_RUN_PASSED']);
    expect(mainLog(s.world).slice(0, 2)).toEqual(['PR 2 (#2)', 'PR 1 (#1)']);
  });

  it('when pendingFailureDepth is 0, then the same failure ejects the head and the successor restarts without it', async () => {
    const { states, events } = await twoOverAFlake({ concurrency: 2 });
    expect(states).toEqual(['failed', 'merged']);
    expect(reasonsOf(events, 'TestsRestarted', 2)).toEqual(['PREREQUISITE_MERGE_ITEM_FAILED']);
  });

  it('when tests are restarted on a testing PR, then its run is replaced and it still merges', async () => {
    const s = await setup({}, { tests: `${testActed.wait}; ${NO_FAIL_CHECK}` });
    await openPrWithFile(s.world, 1, '1\n');
    await s.ci.submit(1);
    await s.reaches(1, ['testing']);
    expect((await s.ci.restart(1)).status).toBe(200);
    await eventsReach(s, 'the first run to be cancelled', (e) => e.type === 'TestRunCancelled');
    testActed.open(s.world);
    expect((await s.reaches(1, TERMINAL)).state).toBe('merged');
    const events = await queueEvents(s.world);
    expect(events.filter((e) => e.type === 'TestRunStarted')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'TestRunCancelled').map((e) => e.data.reason)).toEqual(['TESTS_RESTARTED']);
    checkMergeInvariants(events, s.world);
  });

  it('when a PR stacked under another run is cancelled, then that run restarts without it', async () => {
    const s = await setup({ concurrency: 2, state: 'paused' }, { tests: `${testActed.wait}; ${NO_FAIL_CHECK}` });
    await openPrWithFile(s.world, 1, '1\n');
    await openPrWithFile(s.world, 2, '2\n');
    await submitAllThenResume(s, [1, 2]);
    await s.reaches(2, ['testing']);
    expect((await s.ci.cancel(1)).status).toBe(200);
    await eventsReach(s, 'PR 2 to restart', (e) => e.type === 'TestsRestarted' && e.data.prNumber === 2);
    testActed.open(s.world);
    expect((await s.reaches(2, TERMINAL)).state).toBe('merged');
    expect(filesOnMain(s.world)).not.toContain('f1.txt');
    expect(reasonsOf(await queueEvents(s.world), 'TestsRestarted', 2)).toEqual(['PREREQUISITE_MERGE_ITEM_CANCELLED']);
  });

  it('when someone pushes to the target branch during a run, then the run restarts on the new head and the push stays', async () => {
    const s = await setup({}, { tests: `${testActed.wait}; ${NO_FAIL_CHECK}` });
    await openPrWithFile(s.world, 1, '1\n');
    await s.ci.submit(1);
    await s.reaches(1, ['testing']);
    await commitOnBranch(s.world.gitRoot, s.world.repo, { branch: 'main', files: { 'hotfix.txt': 'hot\n' }, message: 'hotfix' });
    await eventsReach(s, 'PR 1 to restart on the new head', (e) => e.type === 'TestsRestarted' && e.data.prNumber === 1);
    testActed.open(s.world);
    expect((await s.reaches(1, TERMINAL)).state).toBe('merged');
    expect(filesOnMain(s.world)).toEqual(expect.arrayContaining(['hotfix.txt', 'f1.txt']));
    const events = await queueEvents(s.world);
    expect(reasonsOf(events, 'TestsRestarted', 1)).toEqual(['MANUAL_PUSH_TO_TARGET_BRANCH']);
    checkMergeInvariants(events, s.world);
  });

  it('when the queue is paused, then nothing starts or merges until it runs again', async () => {
    const s = await setup({ state: 'paused' });
    await openPrWithFile(s.world, 1, '1\n');
    await s.ci.submit(1);
    await sleep(1000);
    expect((await s.ci.getPr(1)).body.state).toBe('pending');
    expect((await s.admin.updateQueue({ state: 'running' })).status).toBe(200);
    expect((await s.reaches(1, TERMINAL)).state).toBe('merged');
  });

  it('when the queue is draining, then it refuses new PRs but finishes the ones it holds', async () => {
    const s = await setup({ state: 'paused' });
    await openPrWithFile(s.world, 1, '1\n');
    await openPrWithFile(s.world, 2, '2\n');
    await s.ci.submit(1);
    expect((await s.admin.updateQueue({ state: 'draining' })).status).toBe(200);
    expect((await s.ci.submit(2)).status).toBeGreaterThanOrEqual(400);
    expect((await s.reaches(1, TERMINAL)).state).toBe('merged');
  });

  it('when two PRs edit the same lines, then the second fails with a merge conflict naming the first', async () => {
    const s = await setup({ concurrency: 2, state: 'paused' }, { tests: `sleep 0.5; ${NO_FAIL_CHECK}` });
    for (const n of [1, 2]) {
      await commitOnBranch(s.world.gitRoot, s.world.repo, {
        branch: `edit-${n}`,
        files: { 'shared.txt': `edited by ${n}\n` },
        message: `Edit ${n}`,
      });
      await openPr(s.world.gitRoot, { repo: s.world.repo, number: n, head: `edit-${n}` });
    }
    await submitAllThenResume(s, [1, 2]);
    expect((await s.reaches(2, TERMINAL)).state).toBe('failed');
    expect((await s.reaches(1, TERMINAL)).state).toBe('merged');
    const failure = (await queueEvents(s.world)).find((e) => e.type === 'PrFailed' && e.data.prNumber === 2);
    expect(failure?.data).toMatchObject({
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: expect.stringContaining('conflicts with PR #1'),
    });
    expect(failure?.data.detail).toContain('shared.txt');
  });

  it('when the target moved under a waiting PR so that it conflicts, then it fails naming the target branch', async () => {
    const s = await setup({ state: 'paused' });
    await commitOnBranch(s.world.gitRoot, s.world.repo, { branch: 'edit-1', files: { 'shared.txt': 'edited by 1\n' }, message: 'Edit 1' });
    await openPr(s.world.gitRoot, { repo: s.world.repo, number: 1, head: 'edit-1' });
    await s.ci.submit(1);
    await commitOnBranch(s.world.gitRoot, s.world.repo, {
      branch: 'main',
      files: { 'shared.txt': 'edited on main\n' },
      message: 'main edit',
    });
    await s.admin.updateQueue({ state: 'running' });
    expect((await s.reaches(1, TERMINAL)).state).toBe('failed');
    const failure = (await queueEvents(s.world)).find((e) => e.type === 'PrFailed');
    expect(failure?.data).toMatchObject({
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: expect.stringContaining('conflicts with the target branch main'),
    });
  });

  it('when a queued PR is pushed to or closed on the host, then it is cancelled with that reason', async () => {
    // Held until cancelled: the gate is never opened.
    const s = await setup({}, { tests: `${testActed.wait}; ${NO_FAIL_CHECK}` });
    await openPrWithFile(s.world, 1, '1\n');
    await openPrWithFile(s.world, 2, '2\n');
    await s.ci.submit(1);
    await s.ci.submit(2);
    await s.reaches(1, ['testing']);
    await commitOnBranch(s.world.gitRoot, s.world.repo, { branch: 'pr-1', files: { 'f1.txt': 'again\n' } });
    const { LocalGitAdmin } = await import('@railyard/githost');
    const admin = new LocalGitAdmin({ root: s.world.gitRoot });
    await admin.updatePullRequest({ repo: s.world.repo, number: 1, head: 'pr-1' });
    await admin.closePullRequest({ repo: s.world.repo, number: 2 });
    expect((await s.reaches(1, TERMINAL)).state).toBe('cancelled');
    expect((await s.reaches(2, TERMINAL)).state).toBe('cancelled');
    const events = await queueEvents(s.world);
    expect(reasonsOf(events, 'PrCancelled', 1)).toEqual(['PR_PUSHED_TO']);
    expect(reasonsOf(events, 'PrCancelled', 2)).toEqual(['PR_CLOSED']);
    await eventually('the cancelled run to end', async () =>
      (await queueEvents(s.world)).some((e) => e.type === 'TestRunCancelled') ? true : undefined,
    );
  });
});
