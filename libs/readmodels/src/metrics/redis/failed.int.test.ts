import type { QueueEvent } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { prSubmitted, queueCreated, queueDeleted, testQueueId } from '../../testing/fixtures';
import { prFailed, prMerged } from '../../testing/metrics';
import { freshStoreEach } from '../../testing/fresh-store';
import { RecordedEventFactory } from '../../testing/recorded';
import { redisBed } from '../../testing/redis';
import { MemoryMetricsStore } from '../memory/store';
import type { QueueMetricsDoc } from '../projection/model';
import { METRICS_REDIS_FORMAT, metricsRedisKeys } from './keys';
import { RedisMetricsStore } from './store';

const bed = redisBed('metricsfailed');
const keys = metricsRedisKeys(bed.namespace);
const Q = testQueueId('main');
const OTHER = testQueueId('release');
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 0, 1);
const at = (day: number, minute = 0): string => new Date(T0 + day * DAY + minute * 60_000).toISOString();

/**
 * 50 days of one queue where PRs fail, come back with the same or a new commit, and merge, some more
 * than 30 days after their last failure (then no longer an innocent ejection), with the queue deleted
 * and created again on day 45; a second queue fails PRs all along.
 */
const history = (): RecordedEvent[] => {
  const main: QueueEvent[] = [queueCreated(Q, at(0))];
  const other: QueueEvent[] = [queueCreated(OTHER, at(0))];
  for (let day = 0; day < 50; day++) {
    if (day === 45) main.push(queueDeleted(at(day)), queueCreated(Q, at(day, 1)));
    const pr = 1 + (day % 9);
    const sha = day % 4 === 0 ? `sha-${pr}-${day}` : `sha-${pr}`;
    main.push(prSubmitted(pr, at(day, 2), { sha }));
    main.push(day % 3 === 0 ? prMerged(at(day, 3), pr) : prFailed(at(day, 3), pr));
    // PR 100 failed on day 1 and is merged on day 40 with the same commit: 39 days on, not innocent.
    if (day === 1 || day === 40) main.push(prSubmitted(100, at(day, 4)), day === 1 ? prFailed(at(day, 5), 100) : prMerged(at(day, 5), 100));
    other.push(prSubmitted(day, at(day, 2)), prFailed(at(day, 3), day));
  }
  const factory = new RecordedEventFactory();
  const recorded = [...factory.record(Q, ...main), ...factory.record(OTHER, ...other)];
  return recorded.sort((a, b) => Date.parse(a.recordedAt) - Date.parse(b.recordedAt)).map((e, i) => ({ ...e, position: BigInt(i + 1) }));
};

const byId = (docs: QueueMetricsDoc[]): QueueMetricsDoc[] => [...docs].sort((a, b) => a.queueId.localeCompare(b.queueId));

const folded = async (events: RecordedEvent[]): Promise<QueueMetricsDoc[]> => {
  const memory = new MemoryMetricsStore();
  await memory.apply(events);
  return byId(await memory.queues());
};

describe('RedisMetricsStore: failed PRs beside the documents (D312)', () => {
  let store: RedisMetricsStore;
  freshStoreEach(
    () => new RedisMetricsStore({ redis: bed.redis, namespace: bed.namespace }),
    (s) => (store = s),
  );

  it.each([1, 7, 1000])(
    'when 50 days of failures are applied in batches of %i, then the documents and failed PRs equal the memory fold',
    async (size) => {
      const events = history();
      for (let i = 0; i < events.length; i += size) await store.apply(events.slice(i, i + size));
      const expected = await folded(events);
      expect(byId(await store.queues())).toEqual(expected);
      // The fold forgot failures over 30 days old and the re-created queue's earlier ones: so did Redis.
      expect(Object.keys(expected[0]?.failed ?? {}).length).toBeGreaterThan(0);
      expect(await bed.redis.hlen(keys.failed(Q))).toBe(Object.keys(expected.find((d) => d.queueId === Q)?.failed ?? {}).length);
      expect(await bed.redis.zcard(keys.failedAt(OTHER))).toBe(Object.keys(expected.find((d) => d.queueId === OTHER)?.failed ?? {}).length);
    },
  );

  it('when a batch is written, then the queue document holds no failed PRs and a batch naming none leaves their hash alone', async () => {
    const events = history();
    await store.apply(events);
    const doc = JSON.parse((await bed.redis.get(keys.queue(OTHER))) ?? '{}') as Record<string, unknown>;
    expect(doc).not.toHaveProperty('failed');
    const before = await bed.redis.hgetall(keys.failed(OTHER));
    await store.apply(new RecordedEventFactory(BigInt(events.length + 1)).record(OTHER, prSubmitted(500, at(50))));
    expect(await bed.redis.hgetall(keys.failed(OTHER))).toEqual(before);
  });

  it('when the stored model is of the format before D312, then it has no checkpoint and the next batch rebuilds it from the events', async () => {
    const events = history();
    const old = await folded(events.slice(0, 60));
    // What the previous version stored: each document with its failed map inside, no format key.
    const last = events[59]?.position ?? 0n;
    await bed.redis.set(keys.checkpoint, last.toString().padStart(20, '0'));
    for (const doc of old) {
      await bed.redis.set(keys.queue(doc.queueId), JSON.stringify({ ...doc, failed: { 999: { headSha: 'x', failures: 5, at: T0 } } }));
      await bed.redis.zadd(keys.index, 0, doc.queueId);
    }
    expect(await store.checkpoint()).toBeNull();
    await store.apply(events);
    expect(byId(await store.queues())).toEqual(await folded(events));
    expect(await store.checkpoint()).toBe(events[events.length - 1]?.position);
    expect(await bed.redis.get(keys.format)).toBe(METRICS_REDIS_FORMAT);
  });
});
