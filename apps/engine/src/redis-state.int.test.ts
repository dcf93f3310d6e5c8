import { randomUUID } from 'node:crypto';
import { serialize } from 'node:v8';
import { decide, queueIdOf, queueStateBody, queueStreamOf, QUEUE_STATE_SCHEMA, type QueueCommand } from '@railyard/domain';
import { MemoryEventStore, type EventStore } from '@railyard/eventstore';
import { queueCommandHandler } from '@railyard/runtime';
import Redis from 'ioredis';
import { engineWriter } from './engine-commands';
import { RedisEngineState } from './redis-state';
import { ENGINE_SNAPSHOT_SCHEMA, resumeEngine } from './state-snapshots';

const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const namespace = `test-engine-state-${process.pid}`;
const REPO = { host: 'example.test', owner: 'acme', name: 'rocket' };
const STREAM = queueStreamOf(queueIdOf(REPO, 'main'));
const meta = { actor: 'api', correlationId: 'c' };

let redis: Redis;
beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
});
beforeEach(async () => {
  const keys = await redis.keys(`ry:{${namespace}}:*`);
  if (keys.length > 0) await redis.del(...keys);
});
afterAll(async () => {
  const keys = await redis.keys(`ry:{${namespace}}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const submit = (n: number): QueueCommand => ({
  type: 'SubmitPullRequest',
  pr: { number: n, title: `PR ${n}`, author: 'a', headSha: `head-${n}`, baseBranch: 'main', state: 'open', mergeability: 'mergeable' },
});

/** A queue with `prs` PRs submitted through the API's writer. */
const queueWith = async (events: EventStore, prs: number): Promise<void> => {
  const api = queueCommandHandler(events, decide);
  await api.execute(
    STREAM,
    { type: 'CreateQueue', queueId: queueIdOf(REPO, 'main'), repo: REPO, branch: 'main', requiredStatuses: ['tests'], state: 'paused' },
    meta,
  );
  for (let n = 1; n <= prs; n++) await api.execute(STREAM, submit(n), meta);
};

/** Saves what an engine's writer folded, with the head at the log's last event. */
const saveFrom = async (events: EventStore, state: RedisEngineState): Promise<void> => {
  const writer = engineWriter(events, () => new Date());
  await writer.read(STREAM);
  const [last] = (await events.readAll(null, 1_000)).slice(-1);
  const { streams } = writer.saved(0, (s) => serialize(queueStateBody(s)));
  await state.save(
    { schema: ENGINE_SNAPSHOT_SCHEMA, position: last?.position ?? 0n, eventId: last?.eventId ?? '', queues: [queueIdOf(REPO, 'main')] },
    streams.map((s) => ({ ...s, schema: QUEUE_STATE_SCHEMA })),
  );
};

/** The revisions each readStream of the queue's stream started at: 0 means a fold from the start. */
const spied = (events: EventStore): { store: EventStore; reads: number[] } => {
  const reads: number[] = [];
  return {
    reads,
    store: {
      ...events,
      readStream: (streamId, from) => {
        if (streamId === STREAM) reads.push(from ?? 0);
        return events.readStream(streamId, from);
      },
      readAll: (p, n) => events.readAll(p, n),
      append: (s, e, x) => events.append(s, e, x),
      headPosition: () => events.headPosition(),
      subscribe: (o) => events.subscribe(o),
      close: () => events.close(),
    },
  };
};

describe('the engine state in Redis (D292)', () => {
  it('when an engine saved its state, then the next resumes its position and queues and reads the stream only after the saved revision', async () => {
    const events = new MemoryEventStore();
    await queueWith(events, 5);
    const state = new RedisEngineState(redis, namespace);
    await saveFrom(events, state);
    await queueCommandHandler(events, decide).execute(STREAM, submit(6), meta);

    const { store, reads } = spied(events);
    const writer = engineWriter(store, () => new Date());
    const resumed = await resumeEngine(state, store, writer);
    expect(resumed).toMatchObject({ why: 'resumed', queues: [queueIdOf(REPO, 'main')], streams: 1 });
    expect([...(await writer.read(STREAM)).entries.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(reads).toEqual([5]);
  });

  it('when the saved head is not this log’s, then nothing is resumed and the engine reads the log from its start', async () => {
    const saved = new MemoryEventStore();
    await queueWith(saved, 2);
    const state = new RedisEngineState(redis, namespace);
    await saveFrom(saved, state);
    const other = new MemoryEventStore();
    await queueWith(other, 2);

    const resumed = await resumeEngine(
      state,
      other,
      engineWriter(other, () => new Date()),
    );
    expect(resumed).toMatchObject({ why: 'not-this-log', position: null, queues: [] });
  });

  it('when the saved head is of an older schema, then it is not read', async () => {
    const events = new MemoryEventStore();
    await queueWith(events, 1);
    const state = new RedisEngineState(redis, namespace);
    const [last] = await events.readAll(null, 10);
    await state.save(
      { schema: ENGINE_SNAPSHOT_SCHEMA - 1, position: last?.position ?? 0n, eventId: last?.eventId ?? randomUUID(), queues: [] },
      [],
    );
    expect(
      await resumeEngine(
        state,
        events,
        engineWriter(events, () => new Date()),
      ),
    ).toMatchObject({ why: 'older-schema' });
  });
});
