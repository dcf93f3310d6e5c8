import type { RecordedEvent } from '@railyard/eventstore';
import type Redis from 'ioredis';
import type { PrView, QueueView, ReadModelStore } from '../port';
import { foldBatch, prKeyOf, targetsOfBatch, type DocSet } from '../projection/batch';
import { isCurrent, type PrDoc, type QueueDoc } from '../projection/docs';
import { byQueueOrder, isActive } from '../projection/order';
import type { TestRunView } from '../testruns/docs';
import { foldTestRuns, testRunRefsOf } from '../testruns/project';
import { appendTestRunWrites, testRunReads } from '../testruns/redis';
import { batchWrite } from './batch-write';
import { encodePosition, redisKeys, type RedisKeys } from './keys';
import { RedisCheckpoint, RESETTING } from './checkpointed';
import { APPLY_BATCH } from './scripts';

export interface RedisReadModelStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  /** Key namespace, e.g. `rm1`: keys are `ry:{<namespace>}:…`. */
  namespace: string;
  /** How often waitFor re-reads the checkpoint. */
  pollMs?: number;
}

const MAX_APPLY_ATTEMPTS = 10;

/**
 * Read models in Redis. A batch costs two round trips whatever its size: one MGET for the
 * checkpoint and every document it touches, one script that writes the changed documents and the
 * checkpoint atomically, provided the checkpoint has not moved in between.
 */
export class RedisReadModelStore implements ReadModelStore {
  readonly keys: RedisKeys;
  private readonly base: RedisCheckpoint;

  constructor(options: RedisReadModelStoreOptions) {
    this.keys = redisKeys(options.namespace);
    this.base = new RedisCheckpoint({
      redis: options.redis,
      checkpointKey: this.keys.checkpoint,
      modelPatterns: this.keys.modelPatterns,
      pollMs: options.pollMs,
    });
  }

  apply(events: RecordedEvent[]): Promise<void> {
    return this.base.serialise(() => this.applyNow(events));
  }

  private async applyNow(events: RecordedEvent[]): Promise<void> {
    if (events.length === 0) return;
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

    for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
      const values = await this.base.redis.mget(...readKeys);
      const stored = values[0] ?? null;
      if (stored === RESETTING) {
        await this.base.finishReset();
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
      if ((await APPLY_BATCH.run(this.base.redis, call.keys, call.args)) === 1) return;
    }
    throw new Error(
      `read models ${this.keys.namespace}: the checkpoint kept moving under ${MAX_APPLY_ATTEMPTS} attempts to apply a batch; is a second projector writing?`,
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
