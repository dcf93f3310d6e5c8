import { redisClient, type RecordedEvent } from '@railyard/eventstore';
import type Redis from 'ioredis';
import { encodePosition } from './keys';
import { DELETE_IF_EQUALS } from './scripts';

// Written into the checkpoint while reset() deletes keys: a reset cut short is finished by the next
// writer instead of leaving old documents (with positions that would swallow new events) behind.
export const RESETTING = 'resetting';
const SCAN_COUNT = 1000;
const MAX_APPLY_ATTEMPTS = 10;

/** One attempt's read: the checkpoint as stored, and whatever else the store fetched in the same round trip. */
export interface CheckpointRead<V> {
  stored: string | null;
  values: V;
}

/**
 * One attempt's write of the events not yet applied, from `expected` (the checkpoint as read, '' for
 * none) to `next` (the last event's encoded position); false when another writer moved the checkpoint first.
 */
export type CheckpointWrite<V> = (fresh: RecordedEvent[], expected: string, next: string, values: V) => Promise<boolean>;

export interface RedisCheckpointOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  checkpointKey: string;
  /** SCAN patterns of every model key reset() must remove. */
  modelPatterns: readonly string[];
  /** Single keys reset() removes as well (indexes outside the patterns). */
  extraKeys?: readonly string[];
  /** How often waitFor re-reads the checkpoint. */
  pollMs?: number;
}

/**
 * What every Redis read model shares: the client it owns or borrows, one-batch-at-a-time ordering,
 * the checkpoint with its reset marker, waitFor, and close. The stores keep only their own folding.
 */
export class RedisCheckpoint {
  readonly redis: Redis;
  private readonly ownsClient: boolean;
  private closed = false;
  /** Batches of one store go one after another; concurrent ones would only fight over the checkpoint. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: RedisCheckpointOptions) {
    this.ownsClient = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? new (redisClient())(options.redis, { maxRetriesPerRequest: null }) : options.redis;
  }

  serialise<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * The optimistic apply every Redis read model shares, one batch of the store at a time: read, finish
   * a reset cut short, skip events below the checkpoint, write with compare-and-set on the checkpoint,
   * and read again when a second projector moved it first.
   */
  apply<V>(
    events: readonly RecordedEvent[],
    what: string,
    read: () => Promise<CheckpointRead<V>>,
    write: CheckpointWrite<V>,
  ): Promise<void> {
    return this.serialise(async () => {
      if (events.length === 0) return;
      for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
        const { stored, values } = await read();
        if (stored === RESETTING) {
          await this.finishReset();
          continue;
        }
        const checkpoint = stored === null ? null : BigInt(stored);
        const fresh = checkpoint === null ? [...events] : events.filter((e) => e.position > checkpoint);
        const last = fresh[fresh.length - 1];
        if (!last) return;
        if (await write(fresh, stored ?? '', encodePosition(last.position), values)) return;
      }
      throw new Error(
        `${what}: the checkpoint kept moving under ${MAX_APPLY_ATTEMPTS} attempts to apply a batch; is a second projector writing?`,
      );
    });
  }

  async checkpoint(): Promise<bigint | null> {
    const stored = await this.redis.get(this.options.checkpointKey);
    return stored === null || stored === RESETTING ? null : BigInt(stored);
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const pollMs = this.options.pollMs ?? 5;
    for (;;) {
      const current = await this.checkpoint();
      if (current !== null && current >= position) return true;
      if (this.closed || Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
    }
  }

  reset(): Promise<void> {
    return this.serialise(async () => {
      await this.redis.set(this.options.checkpointKey, RESETTING);
      await this.finishReset();
    });
  }

  /** Also run by the next writer that finds the marker, so stale documents never outlive a reset. */
  async finishReset(): Promise<void> {
    for (const pattern of this.options.modelPatterns) {
      let cursor = '0';
      do {
        const [next, found] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
        cursor = next;
        if (found.length > 0) await this.redis.unlink(...found);
      } while (cursor !== '0');
    }
    if (this.options.extraKeys?.length) await this.redis.unlink(...this.options.extraKeys);
    await DELETE_IF_EQUALS.run(this.redis, [this.options.checkpointKey], [RESETTING]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    if (this.ownsClient) await this.redis.quit();
  }
}
