import path from 'node:path';
import { QUEUE_EVENT_SCHEMA_VERSION, queueIdOf, queueStreamOf, type RepoRef } from '@railyard/domain';
import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryMetricsStore, MemoryReadModelStore } from '@railyard/readmodels';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import request from 'supertest';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { loadConfig } from '@railyard/runtime';
import { composeApi, type ComposedApi } from '../compose';
import { openTestHealthStore, testHealthConfigOf } from '../test-health';
import { STORE_READ_HEADER } from './store-reads';

jest.setTimeout(30_000);

const TOKENS = { admin: 'admin-secret-0123456789abcdef', read: 'read-secret-0123456789abcdefgh' };
const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const Q = queueIdOf(repo, 'main');

let dir: string;
let gitDir: string;
let gitRoot: string;
let eventStore: MemoryEventStore;
let readModels: MemoryReadModelStore;
let statuses: CommitStatusStore;
let composed: ComposedApi;
/** Who holds the projector lease, as the test decides; null is "no projector runs". */
let holder: string | null;
let projecting: NodeJS.Timeout | null;
let clockMs: number;

/** Stands in for the projector process: applies whatever the store holds beyond the checkpoint. */
const projectOnce = async (): Promise<void> => {
  await readModels.apply(await eventStore.readAll(await readModels.checkpoint(), 100_000));
};
const startProjecting = (): void => {
  projecting = setInterval(() => void projectOnce(), 5);
};
const stopProjecting = (): void => {
  if (projecting) clearInterval(projecting);
  projecting = null;
};

const post = (p: string, body: unknown, token = TOKENS.admin) =>
  request(composed.app)
    .post(`/v1${p}`)
    .set('x-api-token', token)
    .send(body as object);
const getPr = (n: number) => post('/getSubmittedPullRequest', { repo, targetBranch: 'main', pr: { number: n } }, TOKENS.read);
const getQueue = (branch = 'main') => post('/getQueue', { repo, targetBranch: branch }, TOKENS.read);
const submit = (n: number) => post('/submitPullRequest', { repo, targetBranch: 'main', pr: { number: n } });

const appendEngineEvent = async (type: string, data: Record<string, unknown>): Promise<void> => {
  const at = new Date(clockMs).toISOString();
  await eventStore.append(
    queueStreamOf(Q),
    [
      {
        eventId: `e-${type}-${at}`,
        type,
        data: { ...data, at },
        metadata: { schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, actor: 'engine', correlationId: 'c', at },
      },
    ],
    'any',
  );
};

// One repository for the file: the tests only read it (the queue's state is in each test's own stores),
// and building it with four PRs is most of a test's set-up time.
beforeAll(async () => {
  gitDir = await makeTempDir();
  gitRoot = path.join(gitDir, 'git');
  await createRepoWithCommits(gitRoot, repo, { files: { 'README.md': '# widgets\n' } });
  for (const n of [1, 2, 3, 4]) {
    await commitOnBranch(gitRoot, repo, { branch: `feature-${n}`, files: { [`f${n}.txt`]: `${n}\n` }, message: `Feature ${n}` });
    await openPr(gitRoot, { repo, number: n, head: `feature-${n}`, base: 'main' });
  }
});
afterAll(async () => {
  await removeTempDir(gitDir);
});

beforeEach(async () => {
  dir = await makeTempDir();
  eventStore = new MemoryEventStore();
  readModels = new MemoryReadModelStore();
  statuses = localHostStatuses({ eventStore, gitRoot });
  const blobs = new MemoryBlobStore();
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  holder = 'projector-1';
  clockMs = Date.now();
  composed = composeApi({
    eventStore,
    blobs,
    readModels,
    metrics: new MemoryMetricsStore(),
    testHealthStore: openTestHealthStore('memory', { blobs, config: testHealthConfig }),
    testHealthConfig,
    gitHost: new LocalGitHost({ root: gitRoot }),
    statuses,
    tokens: new TokenRegistry(parseTokenList(`ops:${TOKENS.admin}:admin,dashboard:${TOKENS.read}:read`)),
    logger: createLogger('test', 'error'),
    gitRoot,
    dataDir: dir,
    // Long enough that a write waiting it out would be noticed; the tests assert codes, never times.
    readYourWritesTimeoutMs: 20_000,
    rateLimitPerSecond: 0,
    rateLimitUnauthenticatedPerSecond: 0,
    maxBodyBytesInFlight: 64 * 1024 * 1024,
    projector: { holder: async () => holder },
    projectionMaxLagMs: 60_000,
    // The tests switch the projector off and read at once.
    projectionReadCacheMs: 0,
    projectionWriteCacheMs: 0,
  });
  startProjecting();
  expect((await post('/createQueue', { repo, targetBranch: 'main' })).status).toBe(200);
  expect((await submit(1)).status).toBe(200);
  expect((await submit(2)).status).toBe(200);
});

afterEach(async () => {
  stopProjecting();
  // Ends the waits of writes a test stopped listening to.
  await readModels.close();
  await composed.testHealth.close();
  await statuses.close();
  await removeTempDir(dir);
});

describe('reads while the read models lag', () => {
  it('when the projector stopped before a PR was submitted and one was cancelled, then reads answer from the event store, never "never submitted"', async () => {
    stopProjecting();
    // The store moves on without the read models: PR 3 is submitted and PR 1 cancelled behind their back.
    await post('/submitPullRequest', { repo, targetBranch: 'main', pr: { number: 3 } })
      .timeout(50)
      .catch(() => undefined);
    await eventuallyStored(3);
    await post('/cancelPullRequest', { repo, targetBranch: 'main', pr: { number: 1 } })
      .timeout(50)
      .catch(() => undefined);
    await eventuallyCancelled(1);

    const three = await getPr(3);
    expect(three.status).toBe(200);
    expect(three.body).toMatchObject({ prNumber: 3, state: expect.any(String) });
    expect(three.headers[STORE_READ_HEADER]).toBe('event-store');
    expect((await getPr(4)).body.error.code).toBe('PR_NOT_IN_QUEUE');

    // Behind, but within the lag limit and with a projector: the models answer a PR they hold.
    expect((await getPr(1)).headers[STORE_READ_HEADER]).toBeUndefined();
    const queue = await getQueue();
    expect(queue.status).toBe(200);
    expect(queue.body.enqueuedPullRequests.map((p: { number: number }) => p.number)).toEqual([1, 2]);

    // No projector any more: every read comes from the store, including the cancellation the models missed.
    holder = null;
    const fromStore = await getQueue();
    expect(fromStore.headers[STORE_READ_HEADER]).toBe('event-store');
    expect(fromStore.body.enqueuedPullRequests.map((p: { number: number }) => p.number)).toEqual([2, 3]);
    expect((await getPr(1)).body.state).toBe('cancelled');
  });

  it('when a queue was created after the projector stopped, then getQueue answers it from the store instead of QUEUE_NOT_FOUND', async () => {
    stopProjecting();
    // The answer waits for read models that no longer move: the request is left open until its event
    // is stored, then dropped. A client timeout instead could drop it before the server read it.
    const creating = post('/createQueue', { repo, targetBranch: 'release' });
    const settled = creating.then(
      () => undefined,
      () => undefined,
    );
    await eventually(async () => (await eventStore.readStream(queueStreamOf(queueIdOf(repo, 'release')))).length > 0);
    creating.abort();
    await settled;
    const res = await getQueue('release');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ branch: 'release', enqueuedPullRequests: [] });
    expect((await getQueue('never')).body.error.code).toBe('QUEUE_NOT_FOUND');
  });
});

describe('answers from the store and from the read models', () => {
  it('when both hold the same history, then getQueue and getSubmittedPullRequest answer the same bodies from either', async () => {
    await projectOnce();
    const fromModels = { queue: (await getQueue()).body, pr: (await getPr(2)).body };
    stopProjecting();
    // An event the models lack that changes no view, and no projector: reads now come from the stream.
    await appendEngineEvent('QueueHostProblemCleared', {});
    holder = null;
    const queue = await getQueue();
    const pr = await getPr(2);
    expect([queue.headers[STORE_READ_HEADER], pr.headers[STORE_READ_HEADER]]).toEqual(['event-store', 'event-store']);
    expect(queue.body).toEqual(fromModels.queue);
    expect(pr.body).toEqual(fromModels.pr);
  });
});

describe('writes without a projector', () => {
  it('when no projector holds the lease, then a write answers 503 PROJECTOR_UNAVAILABLE with Retry-After and stores nothing', async () => {
    holder = null;
    const head = await eventStore.headPosition();
    for (const res of [await submit(3), await post('/cancelPullRequest', { repo, targetBranch: 'main', pr: { number: 1 } })]) {
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('PROJECTOR_UNAVAILABLE');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await eventStore.headPosition()).toBe(head);
    holder = 'projector-2';
    expect((await submit(3)).status).toBe(200);
  });
});

describe('/readyz', () => {
  it('when a projector runs and the models are current, then it is ready; with no projector, it is not, and says why', async () => {
    const ready = await request(composed.app).get('/readyz').set('x-api-token', TOKENS.read);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', projector: { running: true, holder: 'projector-1' }, problems: [] });
    // Without a token the holder (host and pid) is not shown.
    expect((await request(composed.app).get('/readyz')).body.projector).toEqual({ running: true });
    holder = null;
    const notReady = await request(composed.app).get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body.problems.map((p: { code: string }) => p.code)).toEqual(['PROJECTOR_UNAVAILABLE']);
  });

  it('when the oldest unapplied event is older than the lag limit, then it is not ready (READ_MODELS_BEHIND) and writes answer 503', async () => {
    stopProjecting();
    await appendEngineEvent('QueueHostProblemCleared', {});
    // The stored event's age is measured by the wall clock against recordedAt: wait past a tiny limit instead.
    const tight = composeApiWithLimit(1);
    await new Promise((r) => setTimeout(r, 20));
    const res = await request(tight.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.problems.map((p: { code: string }) => p.code)).toEqual(['READ_MODELS_BEHIND']);
    expect(res.body.projectionLag.behind).toBe(true);
    const write = await request(tight.app)
      .post('/v1/submitPullRequest')
      .set('x-api-token', TOKENS.admin)
      .send({ repo, targetBranch: 'main', pr: { number: 3 } });
    expect(write.status).toBe(503);
    expect(write.body.error.code).toBe('READ_MODELS_BEHIND');
    await tight.testHealth.close();
  });

  it('when the engine reports a host problem, then getQueue carries it and /readyz lists it (details only with a token) while staying ready', async () => {
    await appendEngineEvent('QueueHostProblemReported', {
      code: 'REPOSITORY_NOT_FOUND',
      detail: 'no bare repository for git.test/acme/widgets',
    });
    await projectOnce();
    const queue = await getQueue();
    expect(queue.body.hostProblem).toEqual({
      code: 'REPOSITORY_NOT_FOUND',
      detail: 'no bare repository for git.test/acme/widgets',
      since: expect.any(String),
    });
    const anonymous = await request(composed.app).get('/readyz');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.hostProblems).toEqual([{ code: 'REPOSITORY_NOT_FOUND', since: expect.any(String) }]);
    const withToken = await request(composed.app).get('/readyz').set('x-api-token', TOKENS.read);
    expect(withToken.body.hostProblems).toEqual([
      {
        code: 'REPOSITORY_NOT_FOUND',
        since: expect.any(String),
        repo,
        branch: 'main',
        detail: 'no bare repository for git.test/acme/widgets',
      },
    ]);
    await appendEngineEvent('QueueHostProblemCleared', {});
    await projectOnce();
    expect((await getQueue()).body.hostProblem).toBeUndefined();
    expect((await request(composed.app).get('/readyz')).body.hostProblems).toEqual([]);
  });
});

const composeApiWithLimit = (maxLagMs: number): ComposedApi => {
  const blobs = new MemoryBlobStore();
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  return composeApi({
    eventStore,
    blobs,
    readModels,
    metrics: new MemoryMetricsStore(),
    testHealthStore: openTestHealthStore('memory', { blobs, config: testHealthConfig }),
    testHealthConfig,
    gitHost: new LocalGitHost({ root: gitRoot }),
    statuses,
    tokens: new TokenRegistry(parseTokenList(`ops:${TOKENS.admin}:admin`)),
    logger: createLogger('test', 'error'),
    gitRoot,
    dataDir: dir,
    readYourWritesTimeoutMs: 20_000,
    rateLimitPerSecond: 0,
    rateLimitUnauthenticatedPerSecond: 0,
    maxBodyBytesInFlight: 64 * 1024 * 1024,
    projector: { holder: async () => holder },
    projectionMaxLagMs: maxLagMs,
    projectionReadCacheMs: 0,
    projectionWriteCacheMs: 0,
  });
};

const eventually = async (check: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
};
const streamTypes = async (): Promise<{ type: string; prNumber?: number }[]> =>
  (await eventStore.readStream(queueStreamOf(Q))).map((e) => ({ type: e.type, prNumber: (e.data as { prNumber?: number }).prNumber }));
const eventuallyStored = (n: number) =>
  eventually(async () => (await streamTypes()).some((e) => e.type === 'PrSubmitted' && e.prNumber === n));
const eventuallyCancelled = (n: number) =>
  eventually(async () => (await streamTypes()).some((e) => e.type === 'PrCancelled' && e.prNumber === n));
