import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { EventStore } from '@railyard/eventstore';
import type { Logger } from '@railyard/observability';
import { RedisLease, redisKeys } from '@railyard/readmodels';
import { RedisDeliveryStore, webhookParts, type EndpointLeases } from '@railyard/webhooks';

/**
 * One Redis lease per endpoint (like the engine's per queue, apps/engine/src/queue-leases.ts): every
 * API replica runs a deliverer, and only the holder of an endpoint's lease sends to it. A replica
 * that dies stops renewing; another takes the endpoint once the TTL runs out and goes on from the
 * shared checkpoint.
 */
export class RedisEndpointLeases implements EndpointLeases {
  private readonly leases = new Map<string, RedisLease>();
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(private readonly o: { redis: Redis; namespace: string; ttlMs: number; logger: Logger }) {}

  async hold(endpointId: string): Promise<boolean> {
    let lease = this.leases.get(endpointId);
    if (!lease) {
      lease = new RedisLease({
        redis: this.o.redis,
        key: redisKeys(this.o.namespace).lease(`webhooks:${endpointId}`),
        owner: this.owner,
        ttlMs: this.o.ttlMs,
      });
      this.leases.set(endpointId, lease);
    }
    if (lease.held) return true;
    const won = await lease.tryAcquire().catch(() => false);
    if (won) this.o.logger.info('took a webhook endpoint lease', { endpointId, owner: this.owner });
    return won;
  }

  async release(endpointId: string): Promise<void> {
    await this.leases
      .get(endpointId)
      ?.release()
      .catch(() => undefined);
  }
}

/** The distributed API's webhooks: endpoints in the shared event store, checkpoints and log in Redis, delivery under leases. */
export const openDistributedWebhooks = (o: {
  eventStore: EventStore;
  redisUrl: string;
  namespace: string;
  allowNetworks: string[];
  retry: { minMs: number; maxMs: number; maxAttempts: number };
  leaseTtlMs: number;
  publicUrl: () => string;
  loadBlob?: (digest: string) => Promise<Buffer | null>;
  secretKeys?: { id: string; key: Buffer }[];
  logger: Logger;
}) => {
  const redis = new Redis(o.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const { api, deliverer } = webhookParts({
    eventStore: o.eventStore,
    // Beside the read models' keys in the namespace (so one Redis serves several installations) but
    // outside their patterns: a read-model rebuild wipes those and must not wipe checkpoints.
    deliveries: new RedisDeliveryStore(redis, `ry:{${redisKeys(o.namespace).namespace}}:`),
    allowNetworks: o.allowNetworks,
    retry: o.retry,
    publicUrl: o.publicUrl,
    ...(o.loadBlob ? { loadBlob: o.loadBlob } : {}),
    ...(o.secretKeys ? { secretKeys: o.secretKeys } : {}),
    logger: o.logger,
    leases: new RedisEndpointLeases({ redis, namespace: o.namespace, ttlMs: o.leaseTtlMs, logger: o.logger }),
  });
  return {
    api,
    deliverer,
    close: async () => {
      await deliverer.stop();
      redis.disconnect();
    },
  };
};
