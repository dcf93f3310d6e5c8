import { hostname } from 'node:os';
import { deserialize } from 'node:v8';
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { sweepRetention, type RetentionPass } from '@railyard/ci';
import { canDropStreams, expiresStreamsByAge, redisClient, type BlobStore, type EventStore } from '@railyard/eventstore';
import { errorFields, type Logger } from '@railyard/observability';
import { RedisLease, redisKeys } from '@railyard/readmodels';
import type { RetentionSettings } from '@railyard/runtime';
import { startPeriodic, type Periodic } from './periodic';

/**
 * Where the standalone engines' snapshot stands (D292: `engine:head`, written by apps/engine's
 * RedisEngineState as v8 serialisation): the event there must stay, or the engines fold from the start.
 */
const engineHeadIn = (redis: Redis, namespace: string) => async (): Promise<bigint | null> => {
  const head = await redis.getBuffer(redisKeys(namespace).engineHead);
  return head ? (deserialize(head) as { position: bigint }).position : null;
};

/** `runOnce` answers null when retention keeps everything or another replica holds the lease. */
export type RetentionSweeper = Periodic<RetentionPass | null>;

export interface RetentionHandle {
  sweeper: RetentionSweeper;
  close(): Promise<void>;
}

/**
 * The retention sweep of commit statuses and archived check logs (docs/decisions.md D296), every
 * `sweepMinutes` and first within five minutes of start (a process restarted more often than the
 * interval still sweeps). The embedded server is the only process on its data dir and sweeps itself;
 * in the distributed shape every API replica runs the timer and only the holder of the `retention`
 * Redis lease sweeps (like webhooks' endpoint leases, D245), so two replicas never sweep at once.
 */
export const startRetention = (o: {
  settings: RetentionSettings;
  eventStore: EventStore;
  blobs: BlobStore;
  logger: Logger;
  clock?: () => Date;
  keepFrom?: () => Promise<bigint | null> | bigint | null;
  lease?: { redisUrl: string; namespace: string; ttlMs: number };
}): RetentionHandle => {
  const { days, sweepMinutes } = o.settings;
  if (days > 0 && !canDropStreams(o.eventStore)) {
    const byAge = expiresStreamsByAge(o.eventStore) ? o.eventStore.streamMaxAge : null;
    // KurrentDB (D314): the server expires what the sweep cannot drop, in streams created since.
    if (byAge)
      o.logger.info('retention: commit-status streams expire by their $maxAge, given as each is created; older streams keep theirs', {
        days,
        maxAgeSeconds: byAge.seconds,
      });
    else o.logger.warn('retention: this event store cannot drop streams, so commit statuses are kept; check logs still expire', { days });
  }
  // ioredis is required here, on first use, not at import: the embedded server never loads it (D290).
  const redis = o.lease ? new (redisClient())(o.lease.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 }) : null;
  const lease =
    redis && o.lease
      ? new RedisLease({
          redis,
          key: redisKeys(o.lease.namespace).lease('retention'),
          owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
          ttlMs: o.lease.ttlMs,
        })
      : null;
  const sweeper = startPeriodic({
    minutes: days > 0 ? sweepMinutes : 0,
    firstAfterMinutes: Math.min(sweepMinutes, 5),
    pass: async (stopped) => {
      if (lease && !(await lease.tryAcquire().catch(() => false))) return null;
      const started = performance.now();
      const done = await sweepRetention({
        events: o.eventStore,
        logs: o.blobs,
        days,
        clock: o.clock ?? (() => new Date()),
        stopped,
        ...(o.keepFrom ? { keepFrom: o.keepFrom } : redis && o.lease ? { keepFrom: engineHeadIn(redis, o.lease.namespace) } : {}),
      });
      if (done) o.logger.info('retention sweep', { ...done, ms: Math.round(performance.now() - started) });
      return done;
    },
    onError: (err) => o.logger.error('retention sweep failed', errorFields(err)),
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
