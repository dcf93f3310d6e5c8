import path from 'node:path';
import { decideEngine, queueIdOf, queueStreamOf, type EngineCommand, type RepoRef } from '@railyard/domain';
import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryMetricsStore, MemoryReadModelStore } from '@railyard/readmodels';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import request from 'supertest';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { loadConfig, queueCommandHandler } from '@railyard/runtime';
import { composeApi, type ComposedApi } from '../compose';
import { openTestHealthStore, testHealthConfigOf } from './test-health';

jest.setTimeout(30_000);

const ADMIN = 'admin-secret-0123456789abcdef';
const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const stream = queueStreamOf(queueIdOf(repo, 'main'));
const meta = { actor: 'engine', correlationId: 'engine-pass' };

let dir: string;
let eventStore: MemoryEventStore;
let readModels: MemoryReadModelStore;
let statuses: CommitStatusStore[];
/** Two API replicas over one event store: each keeps its own cache of the queue's state. */
let replicas: ComposedApi[];
/** The merge engine, another writer of the queue's stream (a worker thread or process in production). */
let engine: ReturnType<typeof queueCommandHandler<EngineCommand>>;
let projecting: NodeJS.Timeout;

const post = (api: ComposedApi, p: string, body: object) => request(api.app).post(`/v1${p}`).set('x-api-token', ADMIN).send(body);
const pr = (n: number) => ({ repo, targetBranch: 'main', pr: { number: n } });
const eventTypes = async () => (await eventStore.readStream(stream)).map((e) => e.type);

const compose = async (gitRoot: string): Promise<ComposedApi> => {
  const blobs = new MemoryBlobStore();
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  const status = localHostStatuses({ eventStore, gitRoot });
  statuses.push(status);
  return composeApi({
    eventStore,
    blobs,
    readModels,
    metrics: new MemoryMetricsStore(),
    testHealthStore: openTestHealthStore('memory', { blobs, config: testHealthConfig }),
    testHealthConfig,
    gitHost: new LocalGitHost({ root: gitRoot }),
    statuses: status,
    tokens: new TokenRegistry(parseTokenList(`ops:${ADMIN}:admin`)),
    logger: createLogger('test', 'error'),
    gitRoot,
    dataDir: dir,
    readYourWritesTimeoutMs: 20_000,
    rateLimitPerSecond: 0,
    rateLimitUnauthenticatedPerSecond: 0,
    maxBodyBytesInFlight: 64 * 1024 * 1024,
  });
};

beforeEach(async () => {
  dir = await makeTempDir();
  const gitRoot = path.join(dir, 'git');
  await createRepoWithCommits(gitRoot, repo, { files: { 'README.md': '# widgets\n' } });
  await commitOnBranch(gitRoot, repo, { branch: 'feature-1', files: { 'f1.txt': '1\n' }, message: 'Feature 1' });
  await openPr(gitRoot, { repo, number: 1, head: 'feature-1', base: 'main' });
  eventStore = new MemoryEventStore();
  readModels = new MemoryReadModelStore();
  statuses = [];
  replicas = [await compose(gitRoot), await compose(gitRoot)];
  engine = queueCommandHandler<EngineCommand>(eventStore, decideEngine);
  // The projector: whatever the store holds beyond the checkpoint, applied as soon as it is appended.
  projecting = setInterval(() => {
    void readModels.checkpoint().then(async (at) => readModels.apply(await eventStore.readAll(at, 100_000)));
  }, 5);
  const [a] = replicas as [ComposedApi];
  expect((await post(a, '/createQueue', { repo, targetBranch: 'main' })).status).toBe(200);
  expect((await post(a, '/submitPullRequest', pr(1))).body.state).toBe('pending');
});

afterEach(async () => {
  clearInterval(projecting);
  await readModels.close();
  for (const api of replicas) await api.testHealth.close();
  for (const s of statuses) await s.close();
  await removeTempDir(dir);
});

const failByEngine = async () => {
  await engine.execute(stream, { type: 'FailPr', prNumber: 1, reason: 'TEST_RUN_TIMEOUT', detail: 'the run timed out' }, meta);
};

describe('resubmitting a PR after another writer moved it on', () => {
  it('when the engine failed a PR and the API submits it again, then a new cycle starts: PrSubmitted is recorded and the PR is pending', async () => {
    const [a] = replicas as [ComposedApi];
    await failByEngine();
    const again = await post(a, '/submitPullRequest', pr(1));
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('pending');
    expect(await eventTypes()).toEqual(['QueueCreated', 'PrSubmitted', 'PrFailed', 'PrSubmitted']);
  });

  it('when another API replica cancelled a PR, then submitting it on this replica starts a new cycle', async () => {
    const [a, b] = replicas as [ComposedApi, ComposedApi];
    expect((await post(b, '/cancelPullRequest', pr(1))).body.state).toBe('cancelled');
    const again = await post(a, '/submitPullRequest', pr(1));
    expect(again.body.state).toBe('pending');
    expect(await eventTypes()).toEqual(['QueueCreated', 'PrSubmitted', 'PrCancelled', 'PrSubmitted']);
  });

  it('when the engine failed a PR, then restarting its tests is refused with 409 and records nothing', async () => {
    const [a] = replicas as [ComposedApi];
    await failByEngine();
    const restart = await post(a, '/restartTestsOnPullRequest', pr(1));
    expect(restart.status).toBe(409);
    expect(restart.body.error.code).toBe('PR_NOT_IN_ACTIVE_STATE');
    expect(await eventTypes()).toEqual(['QueueCreated', 'PrSubmitted', 'PrFailed']);
  });
});
