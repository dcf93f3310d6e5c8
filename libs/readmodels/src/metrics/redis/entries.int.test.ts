import type { QueueEvent } from '@railyard/domain';
import { prSubmitted, queueCreated, testQueueId } from '../../testing/fixtures';
import { prFailed } from '../../testing/metrics';
import { freshStoreEach } from '../../testing/fresh-store';
import { RecordedEventFactory } from '../../testing/recorded';
import { redisBed } from '../../testing/redis';
import { MemoryMetricsStore } from '../memory/store';
import type { LiveEntry } from '../projection/model';
import { METRICS_REDIS_FORMAT, metricsRedisKeys } from './keys';
import { RedisMetricsStore } from './store';

const bed = redisBed('metricsentries');
const keys = metricsRedisKeys(bed.namespace);
const Q = testQueueId('main');
const T0 = Date.UTC(2026, 0, 1);
const at = (second: number): string => new Date(T0 + second * 1000).toISOString();
const submits = (from: number, to: number): QueueEvent[] =>
  Array.from({ length: to - from + 1 }, (_, i) => prSubmitted(from + i, at(from + i), { sha: `sha-${from + i}` }));

describe('RedisMetricsStore: live entries beside the documents (D337)', () => {
  let store: RedisMetricsStore;
  freshStoreEach(
    () => new RedisMetricsStore({ redis: bed.redis, namespace: bed.namespace }),
    (s) => (store = s),
  );

  it('when 10 then 500 PRs are active, then the queue document a batch rewrites is no larger', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, at(0)), ...submits(1, 10)));
    const small = ((await bed.redis.get(keys.queue(Q))) ?? '').length;
    await store.apply(factory.record(Q, ...submits(11, 500)));
    const large = ((await bed.redis.get(keys.queue(Q))) ?? '').length;
    expect(small).toBeGreaterThan(0);
    // Only the position's digits may differ: no entry is kept in the document any more.
    expect(large - small).toBeLessThanOrEqual(3);
    expect(await bed.redis.hlen(keys.entries(Q))).toBe(500);
  });

  it('when a batch moves one PR of 500, then the entries of the others are neither read back nor rewritten', async () => {
    const factory = new RecordedEventFactory();
    const history = factory.record(Q, queueCreated(Q, at(0)), ...submits(1, 500));
    await store.apply(history);
    // A value the fold would never write: a batch that rewrote PR 1's entry would replace it.
    const marker: LiveEntry = { state: 'pending', since: 1, queueType: 'main', runs: 7, headSha: 'marker' };
    await bed.redis.hset(keys.entries(Q), '1', JSON.stringify(marker));
    const moved = factory.record(Q, prFailed(at(600), 2), ...submits(501, 501));
    await store.apply(moved);
    expect(JSON.parse((await bed.redis.hget(keys.entries(Q), '1')) ?? 'null')).toEqual(marker);
    const memory = new MemoryMetricsStore();
    await memory.apply([...history, ...moved]);
    const [expected] = await memory.queues();
    const [doc] = await store.queues();
    expect(doc?.entries).toEqual({ ...expected?.entries, 1: marker });
    expect(doc?.entries).not.toHaveProperty('2');
    expect({ ...doc, entries: {} }).toEqual({ ...expected, entries: {} });
  });

  it('when the stored model is of format 2 (entries inside the documents), then the next batch rebuilds it from the events', async () => {
    const factory = new RecordedEventFactory();
    const events = factory.record(Q, queueCreated(Q, at(0)), ...submits(1, 20));
    const memory = new MemoryMetricsStore();
    await memory.apply(events.slice(0, 11));
    const [old] = await memory.queues();
    await bed.redis.set(keys.checkpoint, (events[10]?.position ?? 0n).toString().padStart(20, '0'));
    await bed.redis.set(keys.format, '2');
    await bed.redis.set(keys.queue(Q), JSON.stringify({ ...old, failed: undefined }));
    await bed.redis.zadd(keys.index, 0, Q);
    expect(await store.checkpoint()).toBeNull();
    await store.apply(events);
    await memory.apply(events);
    expect(await store.queues()).toEqual(await memory.queues());
    expect(await bed.redis.get(keys.format)).toBe(METRICS_REDIS_FORMAT);
    expect(await bed.redis.hlen(keys.entries(Q))).toBe(20);
  });
});
