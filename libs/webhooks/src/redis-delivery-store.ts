import type Redis from 'ioredis';
import { ATTEMPTS_KEPT, EXCERPT_CHARS, type DeliveryAttempt, type DeliveryStore, type NewAttempt } from './delivery-store';

/**
 * The distributed shape's delivery store, in the Redis every process already shares: a checkpoint
 * string per endpoint and a capped list of its latest attempts. Were Redis to lose a checkpoint, the
 * endpoint starts again from its creation: duplicates with the same ids, never a gap.
 */
export class RedisDeliveryStore implements DeliveryStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(kind: 'checkpoint' | 'attempts' | 'ids', endpointId: string): string {
    return `${this.prefix}webhooks:${kind}:${endpointId}`;
  }

  async checkpoint(endpointId: string): Promise<bigint | null | undefined> {
    const v = await this.redis.get(this.key('checkpoint', endpointId));
    return v === null ? undefined : BigInt(v);
  }

  async saveCheckpoint(endpointId: string, position: bigint): Promise<void> {
    await this.redis.set(this.key('checkpoint', endpointId), position.toString());
  }

  async record(a: NewAttempt): Promise<number> {
    const attemptId = await this.redis.incr(this.key('ids', a.endpointId));
    const entry: DeliveryAttempt = { ...a, attemptId, responseExcerpt: a.responseExcerpt.slice(0, EXCERPT_CHARS) };
    const list = this.key('attempts', a.endpointId);
    await this.redis
      .multi()
      .lpush(list, JSON.stringify(entry))
      .ltrim(list, 0, ATTEMPTS_KEPT - 1)
      .exec();
    return attemptId;
  }

  async attempts(endpointId: string, limit: number): Promise<DeliveryAttempt[]> {
    const raw = await this.redis.lrange(this.key('attempts', endpointId), 0, limit - 1);
    return raw.map((r) => JSON.parse(r) as DeliveryAttempt);
  }

  async attempt(endpointId: string, attemptId: number): Promise<DeliveryAttempt | undefined> {
    return (await this.attempts(endpointId, ATTEMPTS_KEPT)).find((a) => a.attemptId === attemptId);
  }

  async forget(endpointId: string): Promise<void> {
    await this.redis.del(this.key('checkpoint', endpointId), this.key('attempts', endpointId), this.key('ids', endpointId));
  }

  async close(): Promise<void> {
    // The connection is the caller's.
  }
}
