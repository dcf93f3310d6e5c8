import { parseQueueId, sameRepo, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type Redis from 'ioredis';
import { targetOf } from '../../events/queue-event';
import { RedisCheckpoint, RESETTING } from '../../redis/checkpointed';
import { APPLY_BATCH } from '../../redis/scripts';
import { foldMetricsBatchInPlace, metricsQueuesOf } from '../projection/batch';
import type { FailedPr, QueueMetricsDoc } from '../projection/model';
import { failedPrKeyOf } from '../projection/project';
import type { MetricsStore } from '../port';
import { LoadedFailedPrs } from './failed';
import { METRICS_REDIS_FORMAT, metricsRedisKeys, type MetricsRedisKeys } from './keys';

export interface RedisMetricsStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  namespace: string;
  pollMs?: number;
}

const MGET_CHUNK = 500;

/** What one attempt at a batch read: the format, the touched documents and the failed PRs its events name. */
interface BatchRead {
  format: string | null;
  docs: (string | null)[];
  failed: Map<string, Map<string, FailedPr | null>>;
}

/**
 * Metrics documents in Redis, shared by every API replica. A batch is one MULTI (checkpoint, format,
 * the touched documents and the failed PRs its events name) and one script that writes what changed
 * with the checkpoint, provided the checkpoint has not moved since the read (the same compare-and-set
 * as the queue views). Failed PRs are kept beside each document, not in it (D312): at 3M events a
 * queue remembered 2,078 of them, 199 KB rewritten with every batch.
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
      extraKeys: [this.keys.index, this.keys.format],
      pollMs: options.pollMs,
    });
  }

  apply(events: RecordedEvent[]): Promise<void> {
    const ids = [...metricsQueuesOf(events)];
    const named = failedPrsNamed(events);
    return this.base.apply<BatchRead>(
      events,
      'metrics read model',
      async () => {
        const multi = this.base.redis.multi().get(this.keys.checkpoint).get(this.keys.format);
        if (ids.length > 0) multi.mget(...ids.map((id) => this.keys.queue(id)));
        const prsOf = [...named].map(([id, prs]) => ({ id, prs: [...prs] }));
        for (const { id, prs } of prsOf) multi.hmget(this.keys.failed(id), ...prs);
        const replies = await repliesOf(multi);
        const [stored = null, format = null] = replies as (string | null)[];
        const docs = ids.length > 0 ? (replies[2] as (string | null)[]) : [];
        const failed = new Map<string, Map<string, FailedPr | null>>();
        prsOf.forEach(({ id, prs }, i) => {
          const values = replies[(ids.length > 0 ? 3 : 2) + i] as (string | null)[];
          failed.set(id, new Map(prs.map((pr, j) => [pr, values[j] ? (JSON.parse(values[j] as string) as FailedPr) : null])));
        });
        if (stored !== null && stored !== RESETTING && format !== METRICS_REDIS_FORMAT) {
          // Written by an older version: rebuilt from the events, never read with this one's meaning.
          await this.base.redis.set(this.keys.checkpoint, RESETTING);
          return { stored: RESETTING, values: { format, docs, failed } };
        }
        return { stored, values: { format, docs, failed } };
      },
      async (fresh, expected, next, read) => {
        // Parsed for this attempt only: folded in place (docs/decisions.md D121).
        const docs = new Map<string, QueueMetricsDoc | null>(ids.map((id, i) => [id, parse(read.docs[i])]));
        const ledgers = new Map<string, LoadedFailedPrs>();
        const failedOf = (id: string): LoadedFailedPrs => {
          let ledger = ledgers.get(id);
          if (!ledger) ledgers.set(id, (ledger = new LoadedFailedPrs(read.failed.get(id) ?? new Map())));
          return ledger;
        };
        const changed = foldMetricsBatchInPlace(docs, fresh, failedOf);
        const keys = [this.keys.checkpoint, this.keys.index, this.keys.format];
        const args = [expected, next, 'S', '3', METRICS_REDIS_FORMAT];
        const ref = (key: string): string => String(keys.push(key));
        for (const id of changed) {
          const doc = docs.get(id);
          if (doc) args.push('S', ref(this.keys.queue(id)), JSON.stringify({ ...doc, failed: undefined }), 'Z', '2', '0', id);
          else args.push('D', ref(this.keys.queue(id)), 'R', '2', id);
        }
        for (const [id, ledger] of ledgers) {
          const dropAll = ledger.cleared || !docs.get(id);
          if (!dropAll && ledger.horizon === null && ledger.changed.size === 0) continue;
          const hash = ref(this.keys.failed(id));
          const byTime = ref(this.keys.failedAt(id));
          if (dropAll) args.push('D', hash, 'D', byTime);
          if (ledger.horizon !== null) args.push('T', hash, byTime, String(ledger.horizon));
          for (const pr of ledger.changed) {
            const value = ledger.valueOf(pr);
            if (value) args.push('H', hash, pr, JSON.stringify(value), 'Z', byTime, String(value.at), pr);
            else args.push('X', hash, pr, 'R', byTime, pr);
          }
        }
        return (await APPLY_BATCH.run(this.base.redis, keys, args)) === 1;
      },
    );
  }

  /** None while the stored model is of another format: the projector then folds from position 0 and the first batch resets it. */
  async checkpoint(): Promise<bigint | null> {
    const [stored, format] = await this.base.redis.mget(this.keys.checkpoint, this.keys.format);
    if (!stored || stored === RESETTING || format !== METRICS_REDIS_FORMAT) return null;
    return BigInt(stored);
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
      const multi = this.base.redis.multi().mget(...chunk.map((id) => this.keys.queue(id)));
      for (const id of chunk) multi.hgetall(this.keys.failed(id));
      const [jsons, ...failed] = await repliesOf(multi);
      (jsons as (string | null)[]).forEach((json, j) => {
        // A queue deleted between the two reads has no document any more: it is simply left out.
        const doc = parse(json);
        if (!doc) return;
        const fields = (failed[j] ?? {}) as Record<string, string>;
        doc.failed = Object.fromEntries(Object.entries(fields).map(([pr, value]) => [pr, JSON.parse(value) as FailedPr]));
        docs.push(doc);
      });
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

/** The replies of a MULTI, the first error thrown. */
const repliesOf = async (multi: ReturnType<Redis['multi']>): Promise<unknown[]> =>
  ((await multi.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });

/** A stored document; its failed PRs are kept apart and filled in by whoever needs them. */
const parse = (json: string | null | undefined): QueueMetricsDoc | null =>
  json ? { ...(JSON.parse(json) as QueueMetricsDoc), failed: {} } : null;

/** Per queue, the PRs whose failed record the batch's events may read or change. */
const failedPrsNamed = (events: readonly RecordedEvent[]): Map<string, Set<string>> => {
  const named = new Map<string, Set<string>>();
  for (const event of events) {
    const pr = failedPrKeyOf(event);
    const queueId = pr === undefined ? undefined : targetOf(event)?.queueId;
    if (pr === undefined || queueId === undefined) continue;
    let prs = named.get(queueId);
    if (!prs) named.set(queueId, (prs = new Set()));
    prs.add(pr);
  }
  return named;
};
