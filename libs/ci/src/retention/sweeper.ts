import { canDropStreams, type BlobStore, type EventStore, type ExpiredBlobs } from '@railyard/eventstore';
import { STATUS_STREAM_PREFIX } from '@railyard/githost';
import { CI_LOG_SPACE } from '../urls';
import { retentionCutoff } from './cutoff';
import { EXPIRED_LOG_NOTE } from './expired-log';

/** What one sweep removed; `statuses` null when the event store cannot drop streams (KurrentDB). */
export interface RetentionPass {
  before: string;
  statuses: { streams: number; events: number; bytes: number } | null;
  logs: ExpiredBlobs | null;
}

export interface RetentionOptions {
  events: EventStore;
  /** The blob store holding archived check logs; null where there is none (the memory mode has one all the same). */
  logs: Pick<BlobStore, 'expireNamed'> | null;
  /** RAILYARD_CI_RETENTION_DAYS; 0 keeps everything. */
  days: number;
  clock: () => Date;
  /**
   * The lowest position a snapshot names (read models D252, the engine D292): the stream holding that
   * event stays, or the snapshot would no longer match the log and be rebuilt from the start.
   */
  keepFrom?: () => Promise<bigint | null> | bigint | null;
  /** Stops a pass between batches (the process is stopping). */
  stopped?: () => boolean;
}

/**
 * One retention pass (docs/decisions.md D296): commit-status streams whose last report is older than
 * the retention are dropped, archived check logs older than it become the expired note. Nothing the
 * queue's own history needs is touched: the engine copies every status it counts into the queue's
 * stream (TestRunStatusReported), which replay, the audit trail and the read models fold.
 */
export const sweepRetention = async (o: RetentionOptions): Promise<RetentionPass | null> => {
  const before = retentionCutoff(o.clock(), o.days);
  if (before === null) return null;
  let statuses: RetentionPass['statuses'] = null;
  if (canDropStreams(o.events)) {
    statuses = { streams: 0, events: 0, bytes: 0 };
    let after: string | undefined;
    do {
      const keepFrom = (await o.keepFrom?.()) ?? undefined;
      const dropped = await o.events.dropStreamsBefore(STATUS_STREAM_PREFIX, before, {
        ...(after !== undefined ? { after } : {}),
        ...(keepFrom !== undefined ? { keepFrom } : {}),
      });
      statuses.streams += dropped.streams;
      statuses.events += dropped.events;
      statuses.bytes += dropped.bytes;
      after = dropped.next ?? undefined;
    } while (after !== undefined && !o.stopped?.());
  }
  const logs = o.logs && !o.stopped?.() ? await o.logs.expireNamed(CI_LOG_SPACE, before, EXPIRED_LOG_NOTE) : null;
  return { before: before.toISOString(), statuses, logs };
};
