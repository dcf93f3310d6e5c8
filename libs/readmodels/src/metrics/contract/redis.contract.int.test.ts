import { RecordedEventFactory } from '../../testing/recorded';
import { testQueueId } from '../../testing/fixtures';
import { scriptedQueueHistory } from '../../testing/metrics';
import { redisBed, redisSpecifics } from '../../testing/redis';
import { MemoryMetricsStore } from '../memory/store';
import type { MetricsStore } from '../port';
import { metricsRedisKeys } from '../redis/keys';
import { RedisMetricsStore } from '../redis/store';
import { metricsStoreContract } from './metrics.contract';

const bed = redisBed('metrics');
const keys = metricsRedisKeys(bed.namespace);
const Q = testQueueId('main');
const t = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();

metricsStoreContract('redis', () => new RedisMetricsStore({ redis: bed.url, namespace: bed.namespace }));

redisSpecifics(bed, () => keys.checkpoint, {
  open: (redis) => new RedisMetricsStore({ redis, namespace: bed.namespace }),
  memory: () => new MemoryMetricsStore(),
  history: () => new RecordedEventFactory().record(Q, ...scriptedQueueHistory(Q, t)),
  afterReset: () => new RecordedEventFactory().record(Q, ...scriptedQueueHistory(Q, t).slice(0, 3)),
  seen: (store: MetricsStore) => store.queues(),
  batches: [4, 7],
});

describe('RedisMetricsStore specifics', () => {
  it('when a batch is applied, then its keys are the checkpoint, the format, the index and per queue a document and its live entries, under the namespace tag', async () => {
    const store = new RedisMetricsStore({ redis: bed.redis, namespace: bed.namespace });
    try {
      await store.reset();
      await store.apply(new RecordedEventFactory().record(Q, ...scriptedQueueHistory(Q, t)));
      expect(await bed.keys()).toEqual([keys.checkpoint, keys.format, keys.index, keys.queue(Q), keys.entries(Q)].sort());
      expect(await bed.redis.zrange(keys.index, 0, '-1')).toEqual([Q]);
    } finally {
      await store.reset();
      await store.close();
    }
  });
});
