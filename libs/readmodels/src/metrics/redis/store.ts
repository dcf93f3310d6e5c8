import { parseQueueId, sameRepo, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type Redis from 'ioredis';
import { targetOf } from '../../events/queue-event';
import { RedisCheckpoint, RESETTING } from '../../redis/checkpointed';
import { APPLY_BATCH } from '../../redis/scripts';
import { foldMetricsBatchInPlace, metricsQueuesOf } from '../projection/batch';
import { entryKeyOf } from '../projection/entries';
import type { FailedPr, LiveEntry, QueueMetricsDoc } from '../projection/model';
import { failedPrKeyOf, type KeptApart } from '../projection/project';
import type { MetricsStore } from '../port';
import { LoadedFailedPrs } from './failed';
import { LoadedFields } from './loaded';
import { METRICS_REDIS_FORMAT, metricsRedisKeys, type MetricsRedisKeys } from './keys';

export interface RedisMetricsStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  namespace: string;
  pollMs?: number;
}

const MGET_CHUNK = 500;

/** Per queue, the fields of one of its hashes a batch loaded (null: no such field). */
type Loaded<T> = Map<string, Map<string, T | null>>;

/** What one attempt at a batch read: the format, the touched documents and the failed PRs and entries its events name. */
interface BatchRead {
  format: string | null;
  docs: (string | null)[];
  failed: Loaded<FailedPr>;
  entries: Loaded<LiveEntry>;
}

/**
 * Metrics documents in Redis, shared by every API replica. A batch is one MULTI (checkpoint, format,
 * the touched documents and the failed PRs and live entries its events name) and one script that
 * writes what changed with the checkpoint, provided the checkpoint has not moved since the read (the
 * same compare-and-set as the queue views). Failed PRs (D312) and live entries (D337) are kept beside
 * each document, not in it: at 3M events a queue remembered 2,078 failed PRs, 199 KB rewritten with
 * every batch, and a queue of 5,000 active PRs had 659 KB of entries.
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
    const failedNamed = fieldsNamed(events, failedPrKeyOf);
    const entriesNamed = fieldsNamed(events, entryKeyOf);
    return this.base.apply<BatchRead>(
      events,
      'metrics read model',
      async () => {
        const multi = this.base.redis.multi().get(this.keys.checkpoint).get(this.keys.format);
        if (ids.length > 0) multi.mget(...ids.map((id) => this.keys.queue(id)));
        for (const [id, prs] of failedNamed) multi.hmget(this.keys.failed(id), ...prs);
        for (const [id, prs] of entriesNamed) multi.hmget(this.keys.entries(id), ...prs);
        const replies = await repliesOf(multi);
        const [stored = null, format = null] = replies as (string | null)[];
        const docs = ids.length > 0 ? (replies[2] as (string | null)[]) : [];
        const rest = replies.slice(ids.length > 0 ? 3 : 2);
        const failed = loadedOf<FailedPr>(failedNamed, rest.slice(0, failedNamed.size));
        const entries = loadedOf<LiveEntry>(entriesNamed, rest.slice(failedNamed.size));
        if (stored !== null && stored !== RESETTING && format !== METRICS_REDIS_FORMAT) {
          // Written by an older version: rebuilt from the events, never read with this one's meaning.
          await this.base.redis.set(this.keys.checkpoint, RESETTING);
          return { stored: RESETTING, values: { format, docs, failed, entries } };
        }
        return { stored, values: { format, docs, failed, entries } };
      },
      async (fresh, expected, next, read) => {
        // Parsed for this attempt only: folded in place (docs/decisions.md D121).
        const docs = new Map<string, QueueMetricsDoc | null>(ids.map((id, i) => [id, parse(read.docs[i])]));
        const failed = new Map<string, LoadedFailedPrs>();
        const entries = new Map<string, LoadedFields<LiveEntry>>();
        const apart: KeptApart = {
          failed: (id) => once(failed, id, () => new LoadedFailedPrs(read.failed.get(id) ?? new Map())),
          entries: (id) => once(entries, id, () => new LoadedFields(read.entries.get(id) ?? new Map(), 'entry of PR')),
        };
        const changed = foldMetricsBatchInPlace(docs, fresh, apart);
        const keys = [this.keys.checkpoint, this.keys.index, this.keys.format];
        const args = [expected, next, 'S', '3', METRICS_REDIS_FORMAT];
        const ref = (key: string): string => String(keys.push(key));
        for (const id of changed) {
          const doc = docs.get(id);
          const stored = doc && JSON.stringify({ ...doc, failed: undefined, entries: undefined });
          if (stored) args.push('S', ref(this.keys.queue(id)), stored, 'Z', '2', '0', id);
          else args.push('D', ref(this.keys.queue(id)), 'R', '2', id);
        }
        const fieldWrites = <T>(hash: string, fields: LoadedFields<T>, dropAll: boolean): void => {
          if (dropAll) args.push('D', hash);
          for (const field of fields.changed) {
            const value = fields.valueOf(field);
            if (value) args.push('H', hash, field, JSON.stringify(value));
            else args.push('X', hash, field);
          }
        };
        for (const [id, ledger] of failed) {
          const dropAll = ledger.cleared || !docs.get(id);
          if (!dropAll && ledger.horizon === null && ledger.changed.size === 0) continue;
          const hash = ref(this.keys.failed(id));
          const byTime = ref(this.keys.failedAt(id));
          if (dropAll) args.push('D', byTime);
          if (ledger.horizon !== null) args.push('T', hash, byTime, String(ledger.horizon));
          fieldWrites(hash, ledger, dropAll);
          for (const pr of ledger.changed) {
            const value = ledger.valueOf(pr);
            if (value) args.push('Z', byTime, String(value.at), pr);
            else args.push('R', byTime, pr);
          }
        }
        for (const [id, live] of entries) {
          const dropAll = live.cleared || !docs.get(id);
          if (dropAll || live.changed.size > 0) fieldWrites(ref(this.keys.entries(id)), live, dropAll);
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
      for (const id of chunk) multi.hgetall(this.keys.entries(id));
      const [jsons, ...hashes] = await repliesOf(multi);
      (jsons as (string | null)[]).forEach((json, j) => {
        // A queue deleted between the two reads has no document any more: it is simply left out.
        const doc = parse(json);
        if (!doc) return;
        doc.failed = parsedFields<FailedPr>(hashes[j]);
        doc.entries = parsedFields<LiveEntry>(hashes[chunk.length + j]);
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

/** A stored document; its failed PRs and entries are kept apart and filled in by whoever needs them. */
const parse = (json: string | null | undefined): QueueMetricsDoc | null =>
  json ? { ...(JSON.parse(json) as QueueMetricsDoc), failed: {}, entries: {} } : null;

/** A whole hash of JSON values (HGETALL's reply), parsed. */
const parsedFields = <T>(reply: unknown): Record<string, T> =>
  Object.fromEntries(Object.entries((reply ?? {}) as Record<string, string>).map(([field, value]) => [field, JSON.parse(value) as T]));

/** Per queue, the fields (PR numbers) of one of its hashes the batch's events may read or change, as `keyOf` names them. */
const fieldsNamed = (events: readonly RecordedEvent[], keyOf: (event: RecordedEvent) => string | undefined): Map<string, string[]> => {
  const named = new Map<string, Set<string>>();
  for (const event of events) {
    const field = keyOf(event);
    const queueId = field === undefined ? undefined : targetOf(event)?.queueId;
    if (field === undefined || queueId === undefined) continue;
    let fields = named.get(queueId);
    if (!fields) named.set(queueId, (fields = new Set()));
    fields.add(field);
  }
  return new Map([...named].map(([id, fields]) => [id, [...fields]]));
};

/** The HMGET replies for `named`, in its order, as loaded fields. */
const loadedOf = <T>(named: Map<string, string[]>, replies: unknown[]): Loaded<T> => {
  const loaded: Loaded<T> = new Map();
  [...named].forEach(([id, fields], i) => {
    const values = replies[i] as (string | null)[];
    loaded.set(id, new Map(fields.map((field, j) => [field, values[j] ? (JSON.parse(values[j] as string) as T) : null])));
  });
  return loaded;
};

/** The value kept under `key`, made on first use. */
const once = <V>(map: Map<string, V>, key: string, make: () => V): V => {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
};
