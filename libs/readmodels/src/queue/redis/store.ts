import type { RecordedEvent } from '@railyard/eventstore';
import type Redis from 'ioredis';
import type { PrView, QueueView, ReadModelStore } from '../port';
import { foldBatch, prKeyOf, targetsOfBatch, type DocSet } from '../projection/batch';
import { isCurrent, type PrDoc, type QueueDoc } from '../projection/docs';
import { byQueueOrder, isActive } from '../projection/order';
import { matchesListing, type PrListPage, type PrListQuery } from '../projection/listing';
import type { TestRunView } from '../../testruns/projection/docs';
import { foldTestRuns, testRunRefsOf } from '../../testruns/projection/project';
import { appendTestRunWrites, testRunReads } from '../../testruns/redis/batch';
import { appendAnswerInvalidation } from './answers';
import { readPrAnswer, readQueueAnswer } from './answer-reads';
import { batchWrite } from './batch-write';
import { redisKeys, type RedisKeys } from '../../redis/keys';
import { RedisCheckpoint } from '../../redis/checkpointed';
import { APPLY_BATCH } from '../../redis/scripts';

export interface RedisReadModelStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  /** Key namespace, e.g. `rm1`: keys are `ry:{<namespace>}:…`. */
  namespace: string;
  /** How often waitFor re-reads the checkpoint. */
  pollMs?: number;
  /**
   * Whether a built getQueue or PR answer is kept for the reads until the queue's next batch (D253;
   * default) or built on every read (`RAILYARD_REDIS_STORED_ANSWERS=off`, D332).
   */
  storedAnswers?: boolean;
}

/**
 * Read models in Redis. A batch costs two round trips whatever its size: one MGET for the
 * checkpoint and every document it touches, one script that writes the changed documents and the
 * checkpoint atomically, provided the checkpoint has not moved in between.
 */
export class RedisReadModelStore implements ReadModelStore {
  readonly keys: RedisKeys;
  private readonly base: RedisCheckpoint;
  private readonly storedAnswers: boolean;

  constructor(options: RedisReadModelStoreOptions) {
    this.keys = redisKeys(options.namespace);
    this.storedAnswers = options.storedAnswers ?? true;
    this.base = new RedisCheckpoint({
      redis: options.redis,
      checkpointKey: this.keys.checkpoint,
      modelPatterns: this.keys.modelPatterns,
      pollMs: options.pollMs,
    });
  }

  apply(events: RecordedEvent[]): Promise<void> {
    const targets = targetsOfBatch(events);
    const queueIds = [...targets.queueIds];
    const prRefs = [...targets.prs.values()];
    const runReads = testRunReads(this.keys, testRunRefsOf(events));
    const readKeys = [
      this.keys.checkpoint,
      ...queueIds.map((id) => this.keys.queue(id)),
      ...prRefs.map((p) => this.keys.pr(p.queueId, p.prNumber)),
    ];
    const runValuesAt = readKeys.length;
    readKeys.push(...runReads.keys);

    return this.base.apply(
      events,
      `read models ${this.keys.namespace}`,
      async () => {
        const values = await this.base.redis.mget(...readKeys);
        return { stored: values[0] ?? null, values };
      },
      async (fresh, expected, next, values) => {
        const docs: DocSet = { queues: new Map(), prs: new Map() };
        queueIds.forEach((id, i) => docs.queues.set(id, parse<QueueDoc>(values[1 + i])));
        prRefs.forEach((p, i) => docs.prs.set(prKeyOf(p.queueId, p.prNumber), parse<PrDoc>(values[1 + queueIds.length + i])));
        const runDocs = runReads.load(values.slice(runValuesAt));
        const changes = foldBatch(docs, fresh);
        const call = batchWrite(this.keys, docs, changes, expected, next);
        const runChanges = foldTestRuns(runDocs, fresh);
        appendTestRunWrites(call, this.keys, runDocs, runChanges);
        appendAnswerInvalidation(call, this.keys, changes, runChanges, next);
        return (await APPLY_BATCH.run(this.base.redis, call.keys, call.args)) === 1;
      },
    );
  }

  checkpoint(): Promise<bigint | null> {
    return this.base.checkpoint();
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.base.waitFor(position, timeoutMs);
  }

  async getQueue(queueId: string): Promise<QueueView | null> {
    return parse<QueueDoc>(await this.base.redis.get(this.keys.queue(queueId)))?.view ?? null;
  }

  async listActivePrs(queueId: string): Promise<PrView[]> {
    const members = await this.base.redis.zrange(this.keys.active(queueId), 0, '-1');
    if (members.length === 0) return [];
    const [queueJson, ...prJson] = await this.base.redis.mget(
      this.keys.queue(queueId),
      ...members.map((m) => this.keys.pr(queueId, Number(m))),
    );
    const queue = parse<QueueDoc>(queueJson);
    // The set and the documents are read in two steps; a batch landing in between is filtered out here.
    return prJson
      .map((json) => parse<PrDoc>(json))
      .filter((doc): doc is PrDoc => isActive(queue, doc))
      .map((doc) => doc.view)
      .sort(byQueueOrder);
  }

  async getPr(queueId: string, prNumber: number): Promise<PrView | null> {
    const [queueJson, prJson] = await this.base.redis.mget(this.keys.queue(queueId), this.keys.pr(queueId, prNumber));
    const pr = parse<PrDoc>(prJson);
    return isCurrent(parse<QueueDoc>(queueJson), pr) ? pr.view : null;
  }

  async listPrs(queueId: string, query: PrListQuery): Promise<PrListPage> {
    const prs: PrView[] = [];
    // Chunks of numbers and their documents until the page and one more match are found, or none are left.
    const chunk = Math.max(query.take + 1, 100);
    let after = query.afterPrNumber ?? -1;
    for (;;) {
      const numbers = await this.base.redis.zrangebyscore(this.keys.prNumbers(queueId), `(${after}`, '+inf', 'LIMIT', 0, chunk);
      if (numbers.length === 0) return { prs, more: false };
      const [queueJson, ...prJson] = await this.base.redis.mget(
        this.keys.queue(queueId),
        ...numbers.map((n) => this.keys.pr(queueId, Number(n))),
      );
      const queue = parse<QueueDoc>(queueJson);
      for (const json of prJson) {
        const doc = parse<PrDoc>(json);
        if (!isCurrent(queue, doc) || !matchesListing(doc.view, query)) continue;
        if (prs.length === query.take) return { prs, more: true };
        prs.push(doc.view);
      }
      if (numbers.length < chunk) return { prs, more: false };
      after = Number(numbers[numbers.length - 1]);
    }
  }

  getQueueAnswer(queueId: string): Promise<string | null> {
    return readQueueAnswer(this.base.redis, this.keys, queueId, this.storedAnswers);
  }

  getPrAnswer(queueId: string, prNumber: number): Promise<string | null> {
    return readPrAnswer(this.base.redis, this.keys, this, queueId, prNumber, this.storedAnswers);
  }

  async listHostProblems(): Promise<QueueView[]> {
    const queueIds = await this.base.redis.zrange(this.keys.hostProblems, 0, '-1');
    if (queueIds.length === 0) return [];
    const docs = await this.base.redis.mget(...queueIds.map((id) => this.keys.queue(id)));
    return docs.flatMap((json) => {
      const view = parse<QueueDoc>(json)?.view;
      return view?.hostProblem ? [view] : [];
    });
  }

  /** Who holds the named lease of this namespace (the projector's: `projector`), or null when no one does. */
  leaseHolder(name: string): Promise<string | null> {
    return this.base.redis.get(this.keys.lease(name));
  }

  async getTestRun(queueId: string, testRunId: string): Promise<TestRunView | null> {
    return parse<{ view: TestRunView }>(await this.base.redis.get(this.keys.testRun(queueId, testRunId)))?.view ?? null;
  }

  reset(): Promise<void> {
    return this.base.reset();
  }

  close(): Promise<void> {
    return this.base.close();
  }
}

const parse = <T>(json: string | null | undefined): T | null => (json ? (JSON.parse(json) as T) : null);
