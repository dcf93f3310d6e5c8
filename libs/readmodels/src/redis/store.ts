import type { RecordedEvent } from '@railyard/eventstore';
import Redis from 'ioredis';
import type { PrView, QueueView, ReadModelStore } from '../port';
import { foldBatch, prKeyOf, targetsOfBatch, type DocSet } from '../projection/batch';
import { isCurrent, type PrDoc, type QueueDoc } from '../projection/docs';
import { byQueueOrder, isActive } from '../projection/order';
import type { TestRunView } from '../testruns/docs';
import { foldTestRuns, testRunRefsOf } from '../testruns/project';
import { appendTestRunWrites, testRunReads } from '../testruns/redis';
import { batchWrite } from './batch-write';
import { encodePosition, redisKeys, type RedisKeys } from './keys';
import { APPLY_BATCH, DELETE_IF_EQUALS } from './scripts';

export interface RedisReadModelStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  /** Key namespace, e.g. `rm1`: keys are `ry:{<namespace>}:…`. */
  namespace: string;
  /** How often waitFor re-reads the checkpoint. */
  pollMs?: number;
}

// Written into the checkpoint while reset() deletes keys: a reset cut short is finished by the next
// writer instead of leaving old documents (with positions that would swallow new events) behind.
const RESETTING = 'resetting';
const MAX_APPLY_ATTEMPTS = 10;
const SCAN_COUNT = 1000;

/**
 * Read models in Redis. A batch costs two round trips whatever its size: one MGET for the
 * checkpoint and every document it touches, one script that writes the changed documents and the
 * checkpoint atomically, provided the checkpoint has not moved in between.
 */
export class RedisReadModelStore implements ReadModelStore {
  readonly keys: RedisKeys;
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly pollMs: number;
  private closed = false;
  /** Batches of one store go one after another; concurrent ones would only fight over the checkpoint. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(options: RedisReadModelStoreOptions) {
    this.keys = redisKeys(options.namespace);
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
    const targets = targetsOfBatch(events);
    const queueIds = [...targets.queueIds];
    const prRefs = [...targets.prs.values()];
    const runReads = testRunReads(this.keys, testRunRefsOf(events));
    const readKeys = [this.keys.checkpoint, ...queueIds.map((id) => this.keys.queue(id)), ...prRefs.map((p) => this.keys.pr(p.queueId, p.prNumber))];
    const runValuesAt = readKeys.length;
    readKeys.push(...runReads.keys);

    for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
      const values = await this.redis.mget(...readKeys);
      const stored = values[0] ?? null;
      if (stored === RESETTING) {
        await this.finishReset();
        continue;
      }
      const checkpoint = stored === null ? null : BigInt(stored);
      const fresh = checkpoint === null ? events : events.filter((e) => e.position > checkpoint);
      const last = fresh[fresh.length - 1];
      if (!last) return;

      const docs: DocSet = { queues: new Map(), prs: new Map() };
      queueIds.forEach((id, i) => docs.queues.set(id, parse<QueueDoc>(values[1 + i])));
      prRefs.forEach((p, i) => docs.prs.set(prKeyOf(p.queueId, p.prNumber), parse<PrDoc>(values[1 + queueIds.length + i])));
      const runDocs = runReads.load(values.slice(runValuesAt));
      const changes = foldBatch(docs, fresh);
      const call = batchWrite(this.keys, docs, changes, stored ?? '', encodePosition(last.position));
      appendTestRunWrites(call, this.keys, runDocs, foldTestRuns(runDocs, fresh));
      if ((await APPLY_BATCH.run(this.redis, call.keys, call.args)) === 1) return;
    }
    throw new Error(`read models ${this.keys.namespace}: the checkpoint kept moving under ${MAX_APPLY_ATTEMPTS} attempts to apply a batch; is a second projector writing?`);
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
      await sleep(Math.min(this.pollMs, Math.max(0, deadline - Date.now())));
    }
  }

  async getQueue(queueId: string): Promise<QueueView | null> {
    return parse<QueueDoc>(await this.redis.get(this.keys.queue(queueId)))?.view ?? null;
  }

  async listActivePrs(queueId: string): Promise<PrView[]> {
    const members = await this.redis.zrange(this.keys.active(queueId), 0, '-1');
    if (members.length === 0) return [];
    const [queueJson, ...prJson] = await this.redis.mget(this.keys.queue(queueId), ...members.map((m) => this.keys.pr(queueId, Number(m))));
    const queue = parse<QueueDoc>(queueJson);
    // The set and the documents are read in two steps; a batch landing in between is filtered out here.
    return prJson
      .map((json) => parse<PrDoc>(json))
      .filter((doc): doc is PrDoc => isActive(queue, doc))
      .map((doc) => doc.view)
      .sort(byQueueOrder);
  }

  async getPr(queueId: string, prNumber: number): Promise<PrView | null> {
    const [queueJson, prJson] = await this.redis.mget(this.keys.queue(queueId), this.keys.pr(queueId, prNumber));
    const pr = parse<PrDoc>(prJson);
    return isCurrent(parse<QueueDoc>(queueJson), pr) ? pr.view : null;
  }

  async getTestRun(queueId: string, testRunId: string): Promise<TestRunView | null> {
    return parse<{ view: TestRunView }>(await this.redis.get(this.keys.testRun(queueId, testRunId)))?.view ?? null;
  }

  reset(): Promise<void> {
    const run = this.tail.then(async () => {
      await this.redis.set(this.keys.checkpoint, RESETTING);
      await this.finishReset();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async finishReset(): Promise<void> {
    for (const pattern of this.keys.modelPatterns) {
      let cursor = '0';
      do {
        const [next, found] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
        cursor = next;
        if (found.length > 0) await this.redis.unlink(...found);
      } while (cursor !== '0');
    }
    await DELETE_IF_EQUALS.run(this.redis, [this.keys.checkpoint], [RESETTING]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    if (this.ownsClient) await this.redis.quit();
  }
}

const parse = <T>(json: string | null | undefined): T | null => (json ? (JSON.parse(json) as T) : null);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
