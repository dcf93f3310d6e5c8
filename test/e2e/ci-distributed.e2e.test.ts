import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { queueIdOf, queueStreamOf, QUEUE_EVENT_SCHEMA_VERSION, type QueueEvent } from '@railyard/domain';
import { SqliteEventStore } from '@railyard/eventstore';
import { localHostStatuses } from '@railyard/githost';
import { commitOnBranch } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { dropNamespace, REDIS_URL, uniqueNamespace } from './support/redis';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);

let world: World;
const namespace = uniqueNamespace('ci-dist');
const running: RunningProcess[] = [];
let api: RunningProcess;

const eventually = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
};

beforeAll(async () => {
  world = await makeWorld();
  const env = {
    ...world.env,
    RAILYARD_REDIS_URL: REDIS_URL,
    RAILYARD_REDIS_NAMESPACE: namespace,
    RAILYARD_SQLITE_FILE: path.join(world.dataDir, 'events.sqlite'),
  };
  running.push(await startProcess('apps/projector/src/main.ts', env, { listens: false, ready: /"message":"projector subscribing"/ }));
  api = await startProcess('apps/api/src/main.ts', { ...env, RAILYARD_PUBLIC_URL: 'https://railyard.example.test/' });
  running.push(api);
  await client(api.url, TOKENS.admin).createQueue();
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await dropNamespace(namespace);
  await world?.cleanup();
});

describe('CI endpoints of the distributed API', () => {
  it('when a status is posted to the API, then a store in another process (the engine’s) hears it through the event store', async () => {
    const sha = await commitOnBranch(world.gitRoot, REPO, { branch: 'dist-status', files: { 'd.txt': 'd\n' } });
    const eventStore = new SqliteEventStore({ file: path.join(world.dataDir, 'events.sqlite') });
    const engineSide = localHostStatuses({ eventStore, gitRoot: world.gitRoot });
    try {
      const heard: string[] = [];
      engineSide.onChange((_repo, changed) => heard.push(changed));
      await engineSide.whenListening();
      expect(
        (await client(api.url, TOKENS.write).post('/setCommitStatus', { repo: REPO, sha, context: 'jenkins', state: 'success' })).status,
      ).toBe(200);
      await eventually(async () => (heard.includes(sha) ? true : undefined), 5000);
      expect((await engineSide.list(REPO, sha)).map((s) => s.state)).toEqual(['success']);
    } finally {
      await engineSide.close();
      await eventStore.close();
    }
  });

  it('when the engine records a run, then the Redis test-run model serves its details, with URLs on the public address', async () => {
    await world.openFeaturePr(5, { title: 'Distributed' });
    expect((await client(api.url, TOKENS.write).submit(5)).status).toBe(200);
    const testRunId = randomUUID();
    const at = new Date().toISOString();
    const events: QueueEvent[] = [
      {
        type: 'TestRunStarted',
        data: {
          testRunId,
          testBranch: `railyard-merge/pr-5/${testRunId}`,
          testBranchSha: 'a'.repeat(40),
          baseSha: 'b'.repeat(40),
          prNumbers: [5],
          dependentPrs: [],
          requiredStatuses: ['unit'],
          requiredStatusesSource: 'trunk_config',
          bisection: false,
          at,
        },
      },
      { type: 'PrTestingStarted', data: { prNumber: 5, testRunId, at } },
      {
        type: 'TestRunStatusReported',
        data: { testRunId, context: 'unit', state: 'pending', url: `https://railyard.example.test/ci/logs/${testRunId}/unit`, at },
      },
    ];
    const store = new SqliteEventStore({ file: path.join(world.dataDir, 'events.sqlite') });
    try {
      const stream = queueStreamOf(queueIdOf(REPO, 'main'));
      const revision = (await store.readStream(stream)).length - 1;
      await store.append(
        stream,
        events.map((e) => ({
          eventId: randomUUID(),
          type: e.type,
          data: e.data,
          metadata: { schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, actor: 'engine', correlationId: randomUUID(), at },
        })),
        revision,
      );
    } finally {
      await store.close();
    }
    const details = await eventually(async () => {
      const res = await client(api.url, TOKENS.read).post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId });
      return res.status === 200 ? res.body : undefined;
    });
    expect(details).toMatchObject({
      status: 'in_progress',
      testedPullRequests: [
        { prNumber: 5, prUrl: 'https://railyard.example.test/repos/git.local/acme/widgets/pulls/5', title: 'Distributed' },
      ],
      checkSuites: [{ name: 'railyard-ci', checkRuns: [{ name: 'unit', status: 'IN_PROGRESS' }] }],
    });
  });
});
