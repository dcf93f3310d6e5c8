import { QUEUE_EVENT_SCHEMA_VERSION, queueStreamOf, type QueueEvent } from '@railyard/domain';
import { MemoryEventStore, type EventStore } from '@railyard/eventstore';
import { createLogger } from '@railyard/observability';
import {
  MemoryReadModelStore,
  rebuildProjections,
  RedisLease,
  RedisReadModelStore,
  redisKeys,
  type ReadModelStore,
} from '@railyard/readmodels';
import * as readModelTesting from '@railyard/readmodels/testing';
import Redis from 'ioredis';
import { runLeasedProjector } from './leased';
import { runProjector, type ProjectorHandle } from './run-projector';

const { prCancelled, prPriorityChanged, prSubmitted, queueCreated, testQueueId } = readModelTesting;
const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const namespace = `test-projector-${process.pid}`;
const Q = testQueueId();
const AT = '2026-03-01T09:00:00.000Z';
const logger = createLogger('projector-test', 'silent');
const fastBackoff = { minMs: 5, maxMs: 20 };

let redis: Redis;
let eventStore: EventStore;
let readModels: RedisReadModelStore;
const stoppers: (() => Promise<void>)[] = [];

let ids = 0;
const append = async (queueId: string, ...events: QueueEvent[]): Promise<bigint> => {
  const result = await eventStore.append(
    queueStreamOf(queueId),
    events.map((e) => ({
      eventId: `ev-${++ids}`,
      type: e.type,
      data: e.data,
      metadata: { schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, actor: 'test', correlationId: 'c', at: e.data.at },
    })),
    'any',
  );
  return result.position;
};

/** A queue with `n` PRs, some cancelled and some re-prioritised, appended in a few commands. */
const appendHistory = async (n: number): Promise<bigint> => {
  let position = await append(Q, queueCreated(Q, AT));
  for (let i = 1; i <= n; i++) {
    const events: QueueEvent[] = [prSubmitted(i, AT, { priorityValue: i % 3 === 0 ? 10 : 100, priorityName: 'medium' })];
    if (i % 4 === 0) events.push(prCancelled(i, AT));
    if (i % 5 === 0) events.push(prPriorityChanged(i, AT, 0, 'urgent'));
    position = await append(Q, ...events);
  }
  return position;
};

const view = async (store: ReadModelStore) => ({
  queue: await store.getQueue(Q),
  active: await store.listActivePrs(Q),
  cancelled: await store.getPr(Q, 4),
});

/** What the read models should hold: the whole log folded by the memory adapter. */
const expected = async () => {
  const memory = new MemoryReadModelStore();
  await memory.apply(await eventStore.readAll(null, 1_000_000));
  return view(memory);
};

const started = (handle: ProjectorHandle): ProjectorHandle => {
  stoppers.push(() => handle.stop());
  return handle;
};

beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
});

beforeEach(async () => {
  eventStore = new MemoryEventStore();
  readModels = new RedisReadModelStore({ redis, namespace });
  await readModels.reset();
});

afterEach(async () => {
  await Promise.all(stoppers.splice(0).map((stop) => stop()));
  await readModels.reset();
  await readModels.close();
  await eventStore.close();
  await redis.del(redisKeys(namespace).lease('projector'));
});

afterAll(async () => {
  await redis.quit();
});

describe('runProjector', () => {
  it('when events exist before it starts and more arrive after, then the Redis read models catch up and follow', async () => {
    await appendHistory(30);
    started(runProjector({ eventStore, readModels, logger, batchSize: 7 }));
    const head = await append(Q, prSubmitted(99, AT, { priorityValue: 0, priorityName: 'urgent' }));
    expect(await readModels.waitFor(head, 5_000)).toBe(true);
    expect(await view(readModels)).toEqual(await expected());
    expect((await readModels.listActivePrs(Q))[0]?.prNumber).toBe(5);
  });

  it('when applying a batch fails, then it resubscribes from the checkpoint and ends with the same models', async () => {
    const head = await appendHistory(25);
    let calls = 0;
    const flaky: ReadModelStore = Object.assign(Object.create(readModels) as RedisReadModelStore, {
      apply: async (events: Parameters<ReadModelStore['apply']>[0]) => {
        calls += 1;
        if (calls === 2 || calls === 3) throw new Error('redis went away');
        return readModels.apply(events);
      },
    });
    started(runProjector({ eventStore, readModels: flaky, logger, batchSize: 5, backoff: fastBackoff }));
    expect(await readModels.waitFor(head, 5_000)).toBe(true);
    expect(calls).toBeGreaterThan(3);
    expect(await view(readModels)).toEqual(await expected());
  });

  it('when stopped, then later events are not applied', async () => {
    const first = await appendHistory(3);
    const projector = started(runProjector({ eventStore, readModels, logger }));
    expect(await readModels.waitFor(first, 5_000)).toBe(true);
    await projector.stop();
    const later = await append(Q, prSubmitted(50, AT));
    expect(await readModels.waitFor(later, 100)).toBe(false);
    expect(await readModels.getPr(Q, 50)).toBeNull();
  });
});

describe('rebuildProjections', () => {
  it('when the read models are rebuilt, then it counts every event and the models equal those built live', async () => {
    const head = await appendHistory(40);
    const projector = started(runProjector({ eventStore, readModels, logger, batchSize: 9 }));
    expect(await readModels.waitFor(head, 5_000)).toBe(true);
    await projector.stop();
    const live = await view(readModels);

    const result = await rebuildProjections({ eventStore, readModels, batchSize: 16 });
    expect(result.events).toBe((await eventStore.readAll(null, 1_000_000)).length);
    expect(result.seconds).toBeGreaterThanOrEqual(0);
    expect(await readModels.checkpoint()).toBe(head);
    expect(await view(readModels)).toEqual(live);
  });

  it('when the read models hold documents from another history, then the rebuild discards them', async () => {
    const other = new MemoryEventStore();
    try {
      await other.append(
        queueStreamOf(Q),
        [
          {
            eventId: 'x',
            type: 'QueueCreated',
            data: queueCreated(Q, '2020-01-01T00:00:00.000Z').data,
            metadata: { schemaVersion: 1, actor: 't', correlationId: 'c', at: AT },
          },
        ],
        'any',
      );
      await readModels.apply(await other.readAll(null, 10));
    } finally {
      await other.close();
    }
    await appendHistory(5);
    await rebuildProjections({ eventStore, readModels });
    expect(await view(readModels)).toEqual(await expected());
  });
});

describe('runLeasedProjector', () => {
  it('when two projectors contend for one namespace, then one projects and the other takes over once the first stops', async () => {
    const lease = (owner: string) =>
      new RedisLease({ redis, key: redisKeys(namespace).lease('projector'), owner, ttlMs: 2_000, retryEveryMs: 10 });
    const projectingBy: string[] = [];
    const contender = (owner: string) =>
      runLeasedProjector({
        lease: lease(owner),
        logger,
        start: () => {
          projectingBy.push(owner);
          return runProjector({ eventStore, readModels, logger });
        },
      });

    const first = contender('first');
    const head = await appendHistory(5);
    expect(await readModels.waitFor(head, 5_000)).toBe(true);
    const second = contender('second');
    stoppers.push(() => second.stop());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(projectingBy).toEqual(['first']);

    await first.stop();
    const later = await append(Q, prSubmitted(77, AT));
    expect(await readModels.waitFor(later, 5_000)).toBe(true);
    expect(projectingBy).toEqual(['first', 'second']);
    expect(await readModels.getPr(Q, 77)).not.toBeNull();
  });
});
