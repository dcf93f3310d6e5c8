import { rm } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { sweepRetention } from '@railyard/ci';
import { FsBlobStore, SqliteEventStore } from '@railyard/eventstore';
import { STATUS_STREAM_PREFIX } from '@railyard/githost';
import { historyEntryOf, replayQueue, type HistoryEntry } from '@railyard/readmodels';
import { commitOnBranch, eventually } from '@railyard/testkit';
import { queueIdOf, queueStreamOf } from '@railyard/domain';
import { client, REPO } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(240_000);

/**
 * Retention (docs/decisions.md D296) drops commit-status streams and expires archived check logs; the
 * queue's own history must not notice. A queue tests and merges PRs with the local CI (statuses of a
 * required and an advisory check, logs archived), then the data dir is swept as 31 days later, the
 * read models are rebuilt from the swept log, and every answer about the queue's past is compared.
 */
let world: World;
let server: RunningProcess | undefined;
const DAY = 86_400_000;

const start = async (): Promise<ReturnType<typeof client>> => {
  server = await startProcess('apps/server/src/main.ts', { ...world.env, RAILYARD_ENGINE: 'on', RAILYARD_ENGINE_TICK_MS: '200' });
  return client(server.url, TOKENS.admin);
};

const serverUrl = (): string => {
  if (!server) throw new Error('the server is not running');
  return server.url;
};

const openStore = () => new SqliteEventStore({ file: path.join(world.dataDir, 'events.sqlite') });
const queueHistory = async (): Promise<HistoryEntry[]> => {
  const store = openStore();
  try {
    return (await store.readStream(queueStreamOf(queueIdOf(REPO, 'main')))).map(historyEntryOf);
  } finally {
    await store.close();
  }
};
const statusEvents = async (): Promise<number> => {
  const store = openStore();
  try {
    return (await store.readAll(null, 1_000_000)).filter((e) => e.streamId.startsWith(STATUS_STREAM_PREFIX)).length;
  } finally {
    await store.close();
  }
};

/** Everything the API says about the queue's past: its answer, each PR, each run's details, the audit trail. */
const answers = async (api: ReturnType<typeof client>, runIds: string[]) => {
  const queue = (await api.getQueue()).body;
  const prs = await Promise.all([1, 2, 3].map(async (n) => (await api.getPr(n)).body));
  const runs = await Promise.all(
    runIds.map(async (testRunId) => (await api.post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId })).body),
  );
  const trail = (await api.post('/getQueueHistory', { repo: REPO, targetBranch: 'main', page_query: { page_size: 1000 } })).body;
  // A restarted server listens on another port: links (in answers and in recorded events) are compared without it.
  return JSON.parse(JSON.stringify({ queue, prs, runs, trail }).replace(/http:\/\/127\.0\.0\.1:\d+/g, 'SERVER')) as {
    queue: unknown;
    prs: { state: string }[];
    runs: { checkSuites: { checkRuns: { url: string }[] }[] }[];
    trail: unknown;
  };
};

beforeAll(async () => {
  world = await makeWorld();
  // `unit` is required and fails on PR 3's file; `advisory` fails every time and gates nothing.
  await commitOnBranch(world.gitRoot, REPO, {
    branch: 'main',
    files: {
      '.railyard.yml': 'ci:\n  unit: "test ! -f f3.txt && echo unit ok"\n  advisory: "exit 1"\nmerge:\n  required_statuses: [unit]\n',
    },
    message: 'Add the CI config',
  });
  for (const n of [1, 2, 3]) await world.openFeaturePr(n);
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('retention of commit statuses and check logs', () => {
  it('when the statuses and logs of a queue’s past were swept, then replay, the audit trail and every read answer the same', async () => {
    let api = await start();
    expect((await api.createQueue()).status).toBe(200);
    for (const n of [1, 2, 3]) {
      expect((await api.submit(n)).status).toBe(200);
      await eventually(async () => ['merged', 'failed'].includes((await api.getPr(n)).body.state as string), `PR ${n} ended`, 120_000);
    }
    const runIds = [
      ...new Set((await queueHistory()).flatMap((e) => (e.type === 'TestRunStarted' ? [(e.data as { testRunId: string }).testRunId] : []))),
    ];
    const before = await answers(api, runIds);
    expect(before.prs.map((p) => p.state)).toEqual(['merged', 'merged', 'failed']);
    const logPaths = before.runs.flatMap((r) => (r.checkSuites[0]?.checkRuns ?? []).map((c) => c.url.replace('SERVER', '')));
    expect(logPaths.length).toBeGreaterThanOrEqual(6);
    expect(
      (
        await request(serverUrl())
          .get(logPaths[0] as string)
          .set('x-api-token', TOKENS.read)
      ).status,
    ).toBe(200);
    await server?.stop();
    server = undefined;

    const history = await queueHistory();
    const instants = [...new Set(history.map((e) => e.time))];
    const replayed = instants.map((at) => replayQueue(history, at));
    expect(await statusEvents()).toBeGreaterThanOrEqual(6);

    // As the embedded server sweeps, 31 days on.
    const store = openStore();
    const blobs = new FsBlobStore({ dir: path.join(world.dataDir, 'blobs') });
    const later = new Date(Date.now() + 31 * DAY);
    const pass = await sweepRetention({ events: store, logs: blobs, days: 30, clock: () => later });
    await store.close();
    await blobs.close();
    expect(pass?.statuses?.streams).toBeGreaterThanOrEqual(3);
    expect(pass?.logs?.blobs).toBe(logPaths.length);
    expect(await statusEvents()).toBe(0);

    // Replay reads the queue's stream alone: at every instant it ever changed, the same queue.
    const after = await queueHistory();
    expect(after).toEqual(history);
    expect(instants.map((at) => replayQueue(after, at))).toEqual(replayed);

    // The read models rebuilt from the swept log, not resumed from their snapshots.
    await rm(path.join(world.dataDir, 'read-models.sqlite'), { force: true });
    api = await start();
    const again = await answers(api, runIds);
    expect(again).toEqual(before);
    for (const logPath of logPaths) {
      const res = await request(serverUrl()).get(logPath).set('x-api-token', TOKENS.read);
      expect([res.status, res.body.error?.code]).toEqual([410, 'LOG_EXPIRED']);
    }
  });
});
