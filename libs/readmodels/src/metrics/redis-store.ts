import { parseQueueId, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import Redis from 'ioredis';
import { encodePosition } from '../redis/keys';
import { APPLY_BATCH, DELETE_IF_EQUALS } from '../redis/scripts';
import { foldMetricsBatch, metricsQueuesOf } from './batch';
import type { QueueMetricsDoc } from './model';
import { sameRepo, type MetricsStore } from './port';
import { metricsRedisKeys, type MetricsRedisKeys } from './redis-keys';

export interface RedisMetricsStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  namespace: string;
  pollMs?: number;
}

const RESETTING = 'resetting';
const MAX_APPLY_ATTEMPTS = 10;
const SCAN_COUNT = 1000;
const MGET_CHUNK = 500;

/**
 * Metrics documents in Redis, shared by every API replica. A batch is one MGET (checkpoint and the
 * touched documents) and one script that writes them back with the checkpoint, provided the
 * checkpoint has not moved since the read (the same compare-and-set as the queue views).
 */
export class RedisMetricsStore implements MetricsStore {
  readonly keys: MetricsRedisKeys;
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly pollMs: number;
  private closed = false;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(options: RedisMetricsStoreOptions) {
    this.keys = metricsRedisKeys(options.namespace);
    this.ownsClient = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? new Redis(options.redis, { maxRetriesPerRequest: null }) : options.redis;
    this.pollMs = options.pollMs ?? 5;
  }

  apply(events: RecordedEvent[]): Promise<void> {
    const run = this.tail.then(() => this.applyNow(events));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async applyNow(events: RecordedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const ids = [...metricsQueuesOf(events)];
    for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
      const [stored = null, ...values] = await this.redis.mget(this.keys.checkpoint, ...ids.map((id) => this.keys.queue(id)));
      if (stored === RESETTING) {
        await this.finishReset();
        continue;
      }
      const checkpoint = stored === null ? null : BigInt(stored);
      const fresh = checkpoint === null ? events : events.filter((e) => e.position > checkpoint);
      const last = fresh[fresh.length - 1];
      if (!last) return;
      const docs = new Map<string, QueueMetricsDoc | null>(ids.map((id, i) => [id, parse(values[i])]));
      const changed = foldMetricsBatch(docs, fresh);

      const keys = [this.keys.checkpoint, this.keys.index];
      const args = [stored ?? '', encodePosition(last.position)];
      for (const id of changed) {
        keys.push(this.keys.queue(id));
        const ref = String(keys.length);
        const doc = docs.get(id);
        if (doc) args.push('S', ref, JSON.stringify(doc), 'Z', '2', '0', id);
        else args.push('D', ref, 'R', '2', id);
      }
      if ((await APPLY_BATCH.run(this.redis, keys, args)) === 1) return;
    }
    throw new Error('metrics read model: the checkpoint kept moving while applying a batch; is a second projector writing?');
  }

  async checkpoint(): Promise<bigint | null> {
    const stored = await this.redis.get(this.keys.checkpoint);
    return stored === null || stored === RESETTING ? null : BigInt(stored);
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await this.checkpoint();
      if (current !== null && current >= position) return true;
      if (this.closed || Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.pollMs, Math.max(0, deadline - Date.now()))));
    }
  }

  async queues(repo?: RepoRef): Promise<QueueMetricsDoc[]> {
    const all = await this.redis.zrange(this.keys.index, 0, '-1');
    const ids = repo ? all.filter((id) => sameRepo(parseQueueId(id).repo, repo)) : all;
    const docs: QueueMetricsDoc[] = [];
    for (let i = 0; i < ids.length; i += MGET_CHUNK) {
      const chunk = ids.slice(i, i + MGET_CHUNK);
      for (const json of await this.redis.mget(...chunk.map((id) => this.keys.queue(id)))) {
        // A queue deleted between the two reads has no document any more: it is simply left out.
        const doc = parse(json);
        if (doc) docs.push(doc);
      }
    }
    return docs;
  }

  reset(): Promise<void> {
    const run = this.tail.then(async () => {
      await this.redis.set(this.keys.checkpoint, RESETTING);
      await this.finishReset();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  // Also run by the next writer when a reset was cut short, so stale documents never outlive it.
  private async finishReset(): Promise<void> {
    let cursor = '0';
    do {
      const [next, found] = await this.redis.scan(cursor, 'MATCH', this.keys.modelPattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      if (found.length > 0) await this.redis.unlink(...found);
    } while (cursor !== '0');
    await this.redis.unlink(this.keys.index);
    await DELETE_IF_EQUALS.run(this.redis, [this.keys.checkpoint], [RESETTING]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    if (this.ownsClient) await this.redis.quit();
  }
}

const parse = (json: string | null | undefined): QueueMetricsDoc | null => (json ? (JSON.parse(json) as QueueMetricsDoc) : null);
