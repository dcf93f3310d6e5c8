import Redis from 'ioredis';
import { RecordedEventFactory } from '../testing/recorded';
import { testQueueId } from '../testing/fixtures';
import { scriptedQueueHistory } from '../testing/metrics';
import { MemoryMetricsStore } from './memory-store';
import { metricsRedisKeys } from './redis-keys';
import { RedisMetricsStore } from './redis-store';
import { metricsStoreContract } from './store.contract';

const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// One namespace per test file and process, so parallel runs never share keys.
const namespace = `test-metrics-${process.pid}`;
const keys = metricsRedisKeys(namespace);
const Q = testQueueId('main');
const t = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();

let redis: Redis;
beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  const leftovers = await redis.keys(`ry:{${namespace}}:*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  await redis.quit();
});

metricsStoreContract('redis', () => new RedisMetricsStore({ redis: url, namespace }));

describe('RedisMetricsStore specifics', () => {
  let store: RedisMetricsStore;
  beforeEach(async () => {
    store = new RedisMetricsStore({ redis, namespace });
    await store.reset();
  });
  afterEach(async () => {
    await store.reset();
    await store.close();
  });

  it('when a batch is applied, then its keys are the checkpoint, the index and one document per queue, under the namespace tag', async () => {
    await store.apply(new RecordedEventFactory().record(Q, ...scriptedQueueHistory(Q, t)));
    expect((await redis.keys(`*${namespace}*`)).sort()).toEqual([keys.checkpoint, keys.index, keys.queue(Q)].sort());
    expect(await redis.zrange(keys.index, 0, '-1')).toEqual([Q]);
  });

  it('when a reset was cut short, then the next apply finishes it before writing', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, ...scriptedQueueHistory(Q, t)));
    await redis.set(keys.checkpoint, 'resetting');
    expect(await store.checkpoint()).toBeNull();
    const fresh = new RecordedEventFactory();
    const events = fresh.record(Q, ...scriptedQueueHistory(Q, t).slice(0, 3));
    await store.apply(events);
    const memory = new MemoryMetricsStore();
    await memory.apply(events);
    expect(await store.queues()).toEqual(await memory.queues());
  });

  it('when two stores write the same namespace at once, then the result equals one store applying each event once', async () => {
    const events = new RecordedEventFactory().record(Q, ...scriptedQueueHistory(Q, t));
    const second = new RedisMetricsStore({ redis: url, namespace });
    try {
      const batches = (size: number) =>
        Array.from({ length: Math.ceil(events.length / size) }, (_, i) => events.slice(i * size, (i + 1) * size));
      await Promise.all([
        (async () => {
          for (const b of batches(4)) await store.apply(b);
        })(),
        (async () => {
          for (const b of batches(7)) await second.apply(b);
        })(),
      ]);
    } finally {
      await second.close();
    }
    const memory = new MemoryMetricsStore();
    await memory.apply(events);
    expect(await store.queues()).toEqual(await memory.queues());
  });
});
