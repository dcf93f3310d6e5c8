import { parseQueueId, sameRepo, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type Redis from 'ioredis';
import { RedisCheckpoint } from '../../redis/checkpointed';
import { APPLY_BATCH } from '../../redis/scripts';
import { foldMetricsBatchInPlace, metricsQueuesOf } from '../projection/batch';
import type { QueueMetricsDoc } from '../projection/model';
import type { MetricsStore } from '../port';
import { metricsRedisKeys, type MetricsRedisKeys } from './keys';

export interface RedisMetricsStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  namespace: string;
  pollMs?: number;
}

const MGET_CHUNK = 500;

/**
 * Metrics documents in Redis, shared by every API replica. A batch is one MGET (checkpoint and the
 * touched documents) and one script that writes them back with the checkpoint, provided the
 * checkpoint has not moved since the read (the same compare-and-set as the queue views).
 */
export class RedisMetricsStore implements MetricsStore {
  readonly keys: MetricsRedisKeys;
  private readonly base: RedisCheckpoint;

  constructor(options: RedisMetricsStoreOptions) {
    this.keys = metricsRedisKeys(options.namespace);
    this.base = new RedisCheckpoint({
      redis: options.redis,
      checkpointKey: this.keys.checkpoint,
      modelPatterns: [this.keys.modelPattern],
      extraKeys: [this.keys.index],
      pollMs: options.pollMs,
    });
  }

  apply(events: RecordedEvent[]): Promise<void> {
    const ids = [...metricsQueuesOf(events)];
    return this.base.apply(
      events,
      'metrics read model',
      async () => {
        const [stored = null, ...values] = await this.base.redis.mget(this.keys.checkpoint, ...ids.map((id) => this.keys.queue(id)));
        return { stored, values };
      },
      async (fresh, expected, next, values) => {
        // Parsed for this attempt only: folded in place (docs/decisions.md D121).
        const docs = new Map<string, QueueMetricsDoc | null>(ids.map((id, i) => [id, parse(values[i])]));
        const changed = foldMetricsBatchInPlace(docs, fresh);
        const keys = [this.keys.checkpoint, this.keys.index];
        const args = [expected, next];
        for (const id of changed) {
          keys.push(this.keys.queue(id));
          const ref = String(keys.length);
          const doc = docs.get(id);
          if (doc) args.push('S', ref, JSON.stringify(doc), 'Z', '2', '0', id);
          else args.push('D', ref, 'R', '2', id);
        }
        return (await APPLY_BATCH.run(this.base.redis, keys, args)) === 1;
      },
    );
  }

  checkpoint(): Promise<bigint | null> {
    return this.base.checkpoint();
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.base.waitFor(position, timeoutMs);
  }

  async queues(repo?: RepoRef): Promise<QueueMetricsDoc[]> {
    const all = await this.base.redis.zrange(this.keys.index, 0, '-1');
    const ids = repo ? all.filter((id) => sameRepo(parseQueueId(id).repo, repo)) : all;
    const docs: QueueMetricsDoc[] = [];
    for (let i = 0; i < ids.length; i += MGET_CHUNK) {
      const chunk = ids.slice(i, i + MGET_CHUNK);
      for (const json of await this.base.redis.mget(...chunk.map((id) => this.keys.queue(id)))) {
        // A queue deleted between the two reads has no document any more: it is simply left out.
        const doc = parse(json);
        if (doc) docs.push(doc);
      }
    }
    return docs;
  }

  reset(): Promise<void> {
    return this.base.reset();
  }

  close(): Promise<void> {
    return this.base.close();
  }
}

const parse = (json: string | null | undefined): QueueMetricsDoc | null => (json ? (JSON.parse(json) as QueueMetricsDoc) : null);
