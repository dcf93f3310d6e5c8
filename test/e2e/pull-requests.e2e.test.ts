import { client } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(60_000);

let world: World;
let server: RunningProcess;
let ci: ReturnType<typeof client>;
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  world = await makeWorld();
  await world.createBranch('develop');
  server = await startProcess('apps/server/src/main.ts', world.env);
  ci = client(server.url, TOKENS.write);
  admin = client(server.url, TOKENS.admin);
  await admin.createQueue();
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('submitting and reading pull requests', () => {
  it('when a mergeable PR is submitted, then it is pending with every field of getSubmittedPullRequest', async () => {
    const pr = await world.openFeaturePr(1, { title: 'Add widget one' });
    const res = await ci.submit(1);
    expect(res.status).toBe(200);
    const got = await ci.getPr(1);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: res.body.id,
      state: 'pending',
      readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, gitHubMergeability: 'mergeable' },
      stateChangedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      priorityValue: 100,
      priorityName: 'medium',
      usedDefaultPriorityName: 'medium',
      skipTheLine: false,
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: true,
      noBatch: false,
      prNumber: 1,
      prTitle: 'Add widget one',
      prSha: pr.headSha,
      prBaseBranch: 'main',
      prAuthor: 'Test Author',
      stateReason: { code: 'API_REQUESTED', message: 'queued: submitted through the API' },
      waitingOn: [{ kind: 'engine', message: 'the merge engine to start a test run' }],
    });
  });

  it('when pr.number comes as a numeric string, then it is accepted as the number', async () => {
    await world.openFeaturePr(2);
    const res = await ci.submit('2');
    expect(res.status).toBe(200);
    expect(res.body.prNumber).toBe(2);
  });

  it('when the PR conflicts with main, then it waits not_ready with the host mergeability shown', async () => {
    await world.openConflictingPr(3);
    const res = await ci.submit(3);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'not_ready', readiness: { gitHubMergeability: 'not_mergeable', doesBaseBranchMatch: true } });
  });

  it('when the PR targets another branch, then it waits not_ready with doesBaseBranchMatch false', async () => {
    await world.openFeaturePr(4, { base: 'develop' });
    const res = await ci.submit(4);
    expect(res.body).toMatchObject({ state: 'not_ready', prBaseBranch: 'develop', readiness: { doesBaseBranchMatch: false } });
  });

  it('when priorities are given by name or number, then value, name and skipTheLine follow', async () => {
    for (const n of [5, 6, 7]) await world.openFeaturePr(n);
    expect((await ci.submit(5, { priority: 'URGENT' })).body).toMatchObject({
      priorityValue: 0,
      priorityName: 'urgent',
      skipTheLine: true,
    });
    expect((await ci.submit(6, { priority: 50 })).body).toMatchObject({ priorityValue: 50, priorityName: 'medium', skipTheLine: false });
    const low = await ci.submit(7, { priority: 'low' });
    expect(low.body).toMatchObject({ priorityValue: 200, priorityName: 'low' });
    expect(low.body.usedDefaultPriorityName).toBeUndefined();
  });

  it('when the priority is out of range or unknown, then 400 (or 422 where the schema of Trunk takes it) and no entry is made', async () => {
    await world.openFeaturePr(8);
    for (const [priority, status] of [
      [256, 422],
      [-1, 400],
      [1.5, 400],
      ['asap', 422],
    ] as const) {
      const res = await ci.submit(8, { priority });
      expect([priority, res.status]).toEqual([priority, status]);
      expect(res.body.error.fields[0].field).toBe('priority');
    }
    expect((await ci.getPr(8)).status).toBe(404);
  });

  it('when a queued PR is submitted again with a new priority, then it keeps its id and changes in place', async () => {
    const first = await ci.submit(1);
    const again = await ci.submit(1, { priority: 'high' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, priorityValue: 10, priorityName: 'high', state: 'pending' });
  });

  it('when getQueue lists the queue, then active PRs come in priority then submission order with their fields', async () => {
    const res = await ci.getQueue();
    const numbers = (res.body.enqueuedPullRequests as { number: number }[]).map((p) => p.number);
    expect(numbers).toEqual([5, 1, 6, 2, 3, 4, 7]);
    const sha = expect.stringMatching(/^[0-9a-f]{40}$/);
    expect(res.body.enqueuedPullRequests[0]).toEqual({
      id: expect.any(String),
      state: 'pending',
      stateChangedAt: expect.any(String),
      priorityValue: 0,
      priorityName: 'urgent',
      skipTheLine: true,
      noBatch: false,
      prNumber: 5,
      prTitle: 'Feature 5',
      prSha: sha,
      prBaseBranch: 'main',
      prAuthor: 'Test Author',
      number: 5,
      title: 'Feature 5',
      sha,
      author: 'Test Author',
      priority: 0,
      stateReason: { code: 'API_REQUESTED', message: 'queued: submitted through the API' },
      waitingOn: [{ kind: 'engine', message: 'the merge engine to start a test run' }],
    });
  });

  it('when the PR or the queue does not exist, then 404 with its own code', async () => {
    const noPr = await ci.submit(4242);
    expect(noPr.status).toBe(404);
    expect(noPr.body.error.code).toBe('PR_NOT_FOUND');
    const noQueue = await ci.submit(1, {}, 'no-such-branch');
    expect(noQueue.status).toBe(404);
    expect(noQueue.body.error.code).toBe('QUEUE_NOT_FOUND');
    const never = await ci.getPr(4242);
    expect(never.status).toBe(404);
    expect(never.body.error.code).toBe('PR_NOT_IN_QUEUE');
  });

  it('when a PR is cancelled, then it is cancelled, leaves the list, and a second cancel is 409', async () => {
    const res = await ci.cancel(7);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'cancelled', isCurrentlySubmittedToQueue: false });
    expect((await ci.getPr(7)).body.state).toBe('cancelled');
    expect((await ci.getQueue()).body.enqueuedPullRequests.map((p: { number: number }) => p.number)).not.toContain(7);
    const again = await ci.cancel(7);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('PR_NOT_IN_ACTIVE_STATE');
    expect((await ci.cancel(4242)).status).toBe(404);
  });

  it('when a cancelled PR is submitted again, then it re-enters with the same entry id', async () => {
    const before = (await ci.getPr(7)).body.id;
    const res = await ci.submit(7);
    expect(res.body).toMatchObject({ id: before, state: 'pending', isCurrentlySubmittedToQueue: true });
  });

  it('when tests are restarted on a PR that is not testing, then 409 PR_TESTS_NOT_RESTARTABLE', async () => {
    const res = await ci.restart(1);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('PR_TESTS_NOT_RESTARTABLE');
  });
});

describe('parallel mode and impacted targets', () => {
  beforeAll(async () => {
    await world.createBranch('par');
    await admin.createQueue({ mode: 'parallel' }, 'par');
    for (const n of [20, 21, 22, 23]) await world.openFeaturePr(n, { base: 'par' });
  });

  it('when a PR is submitted without targets, then it is not_ready until targets for its head SHA arrive', async () => {
    const res = await ci.submit(20, {}, 'par');
    expect(res.body).toMatchObject({ state: 'not_ready', readiness: { requiresImpactedTargets: true, hasImpactedTargets: false } });
    const up = await ci.setTargets(20, ['//app:lib', '//app:test'], {}, 'par');
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ prNumber: 20, count: 2, impactsAll: false });
    expect((await ci.getPr(20, 'par')).body).toMatchObject({ state: 'pending', readiness: { hasImpactedTargets: true } });
  });

  it('when targets are ALL or an empty list, then both count as uploaded', async () => {
    await ci.setTargets(21, 'ALL', {}, 'par');
    expect((await ci.submit(21, {}, 'par')).body.state).toBe('pending');
    await ci.setTargets(22, [], {}, 'par');
    expect((await ci.submit(22, {}, 'par')).body.state).toBe('pending');
  });

  it('when targets were uploaded for another SHA, then they do not count for the current head', async () => {
    const up = await ci.setTargets(23, ['x'], { sha: 'a'.repeat(40) }, 'par');
    expect(up.status).toBe(200);
    expect((await ci.submit(23, {}, 'par')).body).toMatchObject({ state: 'not_ready', readiness: { hasImpactedTargets: false } });
  });

  it('when impactedTargets is malformed or the queue unknown, then 4xx and nothing is recorded', async () => {
    for (const bad of ['SOME', [1, 2], { all: true }, null]) expect((await ci.setTargets(23, bad, {}, 'par')).status).toBe(400);
    expect((await ci.setTargets(0, ['x'], {}, 'par')).status).toBe(400);
    expect((await ci.setTargets(23, ['x'], {}, 'nope')).status).toBe(404);
    expect((await ci.getPr(23, 'par')).body.state).toBe('not_ready');
  });
});

describe('queue states and submissions', () => {
  it('when the queue drains, then a new PR is refused with 409 but a queued one can still change priority', async () => {
    await world.createBranch('drain');
    await admin.createQueue({}, 'drain');
    await world.openFeaturePr(30, { base: 'drain' });
    await world.openFeaturePr(31, { base: 'drain' });
    expect((await ci.submit(30, {}, 'drain')).body.state).toBe('pending');
    await admin.updateQueue({ state: 'draining' }, 'drain');
    const refused = await ci.submit(31, {}, 'drain');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('QUEUE_NOT_ACCEPTING_SUBMISSIONS');
    expect((await ci.submit(30, { priority: 'high' }, 'drain')).body.priorityName).toBe('high');
  });

  it('when the queue is paused, then submissions are accepted and held', async () => {
    await world.createBranch('paused');
    await admin.createQueue({ state: 'paused' }, 'paused');
    await world.openFeaturePr(32, { base: 'paused' });
    expect((await ci.submit(32, {}, 'paused')).body.state).toBe('pending');
  });
});
