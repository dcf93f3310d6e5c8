import { readModelTesting, RedisReadModelStore, redisKeys } from '@railyard/readmodels';
import Redis from 'ioredis';
import { readModelContract } from './readmodels.contract';

const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// One namespace per test file and process, so parallel runs and other suites never share keys.
const namespace = `test-rm-contract-${process.pid}`;
const keys = redisKeys(namespace);
const { RecordedEventFactory, prSubmitted, prCancelled, queueCreated, testQueueId } = readModelTesting;
const Q = testQueueId();
const AT = '2026-03-01T09:00:00.000Z';

let redis: Redis;

beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  const leftovers = await redis.keys(`ry:{${namespace}}:*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  await redis.quit();
});

readModelContract('redis', () => new RedisReadModelStore({ redis: url, namespace }));

describe('RedisReadModelStore specifics', () => {
  let store: RedisReadModelStore;

  beforeEach(async () => {
    store = new RedisReadModelStore({ redis, namespace });
    await store.reset();
  });

  afterEach(async () => {
    await store.reset();
    await store.close();
  });

  it('when a batch is applied, then every key it writes is under the namespace hash tag', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), prSubmitted(2, AT), prCancelled(2, AT)));
    const written = (await redis.keys(`*${namespace}*`)).sort();
    expect(written).toEqual(
      [keys.checkpoint, keys.pr(Q, 1), keys.pr(Q, 2), keys.queue(Q), keys.active(Q), keys.queueAnswer(Q), keys.prAnswers(Q)].sort(),
    );
    expect(await redis.zrange(keys.active(Q), 0, '-1')).toEqual(['1']);
    expect(await redis.get(keys.checkpoint)).toBe('00000000000000000004');
  });

  it('when a reset was cut short, then the next apply finishes it before writing', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, AT), prSubmitted(1, AT)));
    // What a crash in the middle of reset() leaves: the marker, and documents not yet deleted.
    await redis.set(keys.checkpoint, 'resetting');
    expect(await store.checkpoint()).toBeNull();

    const fresh = new RecordedEventFactory();
    await store.apply(fresh.record(Q, queueCreated(Q, AT), prSubmitted(7, AT)));
    expect(await store.getPr(Q, 1)).toBeNull();
    expect((await store.listActivePrs(Q)).map((p) => p.prNumber)).toEqual([7]);
    expect(await store.checkpoint()).toBe(2n);
  });

  it('when two stores write the same namespace at once, then the result equals one store applying each event once', async () => {
    const factory = new RecordedEventFactory();
    const events = factory.record(Q, queueCreated(Q, AT));
    for (let n = 1; n <= 60; n++)
      events.push(...factory.record(Q, prSubmitted(n, AT, { priorityValue: n % 2 === 0 ? 10 : 100, priorityName: 'medium' })));
    const second = new RedisReadModelStore({ redis: url, namespace });
    try {
      const batches = (size: number) =>
        Array.from({ length: Math.ceil(events.length / size) }, (_, i) => events.slice(i * size, (i + 1) * size));
      await Promise.all([
        (async () => {
          for (const b of batches(5)) await store.apply(b);
        })(),
        (async () => {
          for (const b of batches(9)) await second.apply(b);
        })(),
      ]);
    } finally {
      await second.close();
    }
    const active = await store.listActivePrs(Q);
    expect(active.map((p) => p.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(active.map((p) => p.prNumber)).toEqual([
      ...Array.from({ length: 30 }, (_, i) => 2 * (i + 1)),
      ...Array.from({ length: 30 }, (_, i) => 2 * i + 1),
    ]);
    expect(await store.checkpoint()).toBe(61n);
  });
});
