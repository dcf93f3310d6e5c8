import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { startRetentionSweeper, type RetentionSweeper } from '@railyard/ci';
import type { BlobStore, EventStore } from '@railyard/eventstore';
import type { Logger } from '@railyard/observability';
import { RedisLease, redisKeys } from '@railyard/readmodels';
import type { RetentionSettings } from '@railyard/runtime';

export interface RetentionHandle {
  sweeper: RetentionSweeper;
  close(): Promise<void>;
}

/**
 * The retention sweep of commit statuses and archived check logs (docs/decisions.md D296). The
 * embedded server is the only process on its data dir and sweeps itself; in the distributed shape
 * every API replica runs the timer and only the holder of the `retention` Redis lease sweeps (like
 * webhooks' endpoint leases, D245), so two replicas never drop the same streams at once.
 */
export const startRetention = (o: {
  settings: RetentionSettings;
  eventStore: EventStore;
  blobs: BlobStore;
  logger: Logger;
  clock?: () => Date;
  keepFrom?: () => bigint | null;
  lease?: { redisUrl: string; namespace: string; ttlMs: number };
}): RetentionHandle => {
  const redis = o.lease ? new Redis(o.lease.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 }) : null;
  const lease =
    redis && o.lease
      ? new RedisLease({
          redis,
          key: redisKeys(o.lease.namespace).lease('retention'),
          owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
          ttlMs: o.lease.ttlMs,
        })
      : null;
  const sweeper = startRetentionSweeper({
    events: o.eventStore,
    logs: o.blobs,
    days: o.settings.days,
    minutes: o.settings.sweepMinutes,
    clock: o.clock ?? (() => new Date()),
    logger: o.logger,
    ...(o.keepFrom ? { keepFrom: o.keepFrom } : {}),
    ...(lease ? { mayRun: () => lease.tryAcquire().catch(() => false) } : {}),
  });
  return {
    sweeper,
    close: async () => {
      await sweeper.stop();
      await lease?.release().catch(() => undefined);
      await redis?.quit().catch(() => undefined);
    },
  };
};
