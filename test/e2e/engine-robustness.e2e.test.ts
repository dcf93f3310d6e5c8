import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { DEFAULT_SETTINGS, queueIdOf, queueStreamOf, type RepoRef } from '@railyard/domain';
import { createEventStore } from '@railyard/eventstore';
import {
  REPO,
  TOKENS,
  client,
  eventually,
  makeWorld,
  queueEvents,
  sleep,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(120_000);

let world: World;
let server: RunningProcess;
const GHOST: RepoRef = { ...REPO, name: 'ghost' };
/** From `<git root>/<host>/<owner>/<name>.git/refs/heads/`, six levels up is the data dir. */
const EVIL_BRANCH = '../../../../../../outside.fifo';

/** Nobody holds the FIFO open for reading: a non-blocking open for writing fails with ENXIO. */
const fifoHasNoReader = (fifo: string): boolean => {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENXIO';
  }
};

const ghostEvents = async () => {
  const store = await createEventStore({ kind: 'sqlite', file: `${world.dataDir}/events.sqlite` });
  try {
    return await store.readStream(queueStreamOf(queueIdOf(GHOST, 'main')));
  } finally {
    await store.close();
  }
};

beforeAll(async () => {
  world = await makeWorld();
  execFileSync('mkfifo', [path.join(world.dataDir, 'outside.fifo')]);
  // A queue whose branch leads out of the repository to a named pipe, written straight into the
  // stream as an old stream (from before branch names were checked) would hold it.
  const store = await createEventStore({ kind: 'sqlite', file: `${world.dataDir}/events.sqlite` });
  const queueId = queueIdOf(REPO, EVIL_BRANCH);
  const at = new Date().toISOString();
  await store.append(
    queueStreamOf(queueId),
    [
      {
        eventId: randomUUID(),
        type: 'QueueCreated',
        data: { queueId, repo: REPO, branch: EVIL_BRANCH, settings: DEFAULT_SETTINGS, requiredStatuses: [], state: 'running', at },
        metadata: { schemaVersion: 1, actor: 'old-version', correlationId: 'old', at },
      },
    ],
    'no_stream',
  );
  await store.close();
  server = await startEmbedded(world, { RAILYARD_ENGINE_TICK_MS: '20' });
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('the engine against hostile or broken queues', () => {
  it('when a stored queue branch leads out of the repository to a named pipe, then the server keeps answering and never opens the pipe', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await request(server.url).get('/healthz').timeout(2000);
      expect(res.status).toBe(200);
      await sleep(100);
    }
    expect((await client(server.url, TOKENS.read).getQueue()).status).toBeLessThan(500);
    expect(fifoHasNoReader(path.join(world.dataDir, 'outside.fifo'))).toBe(true);
    const events = await queueEvents(world, EVIL_BRANCH);
    expect(events.find((e) => e.type === 'QueueHostProblemReported')?.data).toMatchObject({ code: 'INVALID_TARGET_BRANCH' });
  });

  it('when a queue’s repository does not exist, then its passes back off: the error is logged once, counted, and recorded on the queue', async () => {
    const admin = request(server.url).post('/v1/createQueue').set('x-api-token', TOKENS.admin);
    expect((await admin.send({ repo: GHOST, targetBranch: 'main' })).status).toBe(200);
    await eventually('the missing repository to be recorded', async () =>
      (await ghostEvents()).some((e) => e.type === 'QueueHostProblemReported') ? true : undefined,
    );
    // Ticks every 20 ms for 3 s: without backoff that is 150 passes, each failing and logging.
    await sleep(3000);
    const logged = server
      .output()
      .split('\n')
      .filter((l) => l.includes('engine pass failed') && l.includes('ghost'));
    expect(logged).toHaveLength(1);
    const metrics = await request(server.url).get('/v1/getMergeQueueMetrics').set('x-api-token', TOKENS.read);
    const failures = /railyard_engine_pass_failures_total\{code="REPO_NOT_FOUND"\} (\d+)/.exec(metrics.text);
    expect(Number(failures?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(failures?.[1])).toBeLessThanOrEqual(10);
    const recorded = (await ghostEvents()).filter((e) => e.type === 'QueueHostProblemReported');
    expect(recorded.map((e) => (e.data as { code: string }).code)).toEqual(['REPOSITORY_NOT_FOUND']);
  });
});
