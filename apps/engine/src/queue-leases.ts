import { RedisLease, redisKeys } from '@railyard/readmodels';
import type { Logger } from '@railyard/observability';
import type Redis from 'ioredis';

/**
 * One Redis lease per queue, so two engine processes never drive the same queue at once. A queue is
 * driven only while its lease is held; a lost lease (this process stalled past the TTL) is simply
 * tried again on the next trigger. The expected-revision check on every append and the
 * compare-and-swap on every branch move stay the safety net for the moment in between.
 */
export class QueueLeases {
  private readonly leases = new Map<string, RedisLease>();

  constructor(private readonly options: { redis: Redis; namespace: string; owner: string; ttlMs: number; logger: Logger }) {}

  owns = async (queueId: string): Promise<boolean> => {
    let lease = this.leases.get(queueId);
    if (!lease) {
      lease = new RedisLease({
        redis: this.options.redis,
        key: redisKeys(this.options.namespace).lease(`engine:${queueId}`),
        owner: this.options.owner,
        ttlMs: this.options.ttlMs,
      });
      lease.onLost(() => this.options.logger.warn('engine lost a queue lease', { queueId }));
      this.leases.set(queueId, lease);
    }
    if (lease.held) return true;
    const won = await lease.tryAcquire().catch(() => false);
    if (won) this.options.logger.info('engine took a queue lease', { queueId });
    return won;
  };

  release = async (queueId: string): Promise<void> => {
    await this.leases
      .get(queueId)
      ?.release()
      .catch(() => undefined);
  };
}
