import { RedisLease, redisKeys } from '@railyard/readmodels';
import { errorFields, type Logger } from '@railyard/observability';
import type Redis from 'ioredis';

/**
 * One Redis lease per queue, so two engine processes never drive the same queue at once. A queue is
 * driven only while its lease is held; a lost lease (this process stalled past the TTL) is simply
 * tried again on the next trigger. The expected-revision check on every append and the
 * compare-and-swap on every branch move stay the safety net for the moment in between.
 *
 * A release (SIGTERM, a rolling deploy) is published on a channel every engine listens to, so a
 * standby tries the queue at once instead of at its next tick: takeover in milliseconds, where a
 * holder that died without releasing is taken over once its lease expires (the TTL).
 */
export class QueueLeases {
  private readonly leases = new Map<string, RedisLease>();
  private readonly channel: string;
  private subscriber: Redis | null = null;

  constructor(private readonly options: { redis: Redis; namespace: string; owner: string; ttlMs: number; logger: Logger }) {
    this.channel = redisKeys(options.namespace).lease('engine-released');
  }

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
    if (won) this.options.logger.info('engine took a queue lease', { queueId, owner: this.options.owner, ttlMs: this.options.ttlMs });
    return won;
  };

  release = async (queueId: string): Promise<void> => {
    const lease = this.leases.get(queueId);
    if (!lease?.held) return;
    await lease.release().catch(() => undefined);
    this.options.logger.info('engine released a queue lease', { queueId, owner: this.options.owner });
    await this.options.redis.publish(this.channel, queueId).catch(() => undefined);
  };

  /** Calls `listener` with the queue whenever another engine releases its lease; resolves once subscribed. */
  async onReleased(listener: (queueId: string) => void): Promise<void> {
    const sub = this.options.redis.duplicate();
    this.subscriber = sub;
    sub.on('message', (channel: string, queueId: string) => {
      if (channel === this.channel && !this.leases.get(queueId)?.held) listener(queueId);
    });
    sub.on('error', (err: unknown) =>
      this.options.logger.warn('engine lease channel failed; takeovers wait for the tick', errorFields(err)),
    );
    await sub.subscribe(this.channel);
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.subscriber = null;
  }
}
