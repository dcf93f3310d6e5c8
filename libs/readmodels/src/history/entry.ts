import type { RecordedEvent } from '@railyard/eventstore';

/** One event of a queue's stream as the audit trail shows it. */
export interface HistoryEntry {
  /** Global position in the event store (decimal string: it may exceed 2^53). */
  position: string;
  /** 0-based position inside the queue's stream. */
  revision: number;
  eventId: string;
  /** When the change was decided (the domain's clock); replay folds by this time. */
  time: string;
  /** When the store wrote it. */
  recordedAt: string;
  type: string;
  /** Token name, or "engine" / "cli" for changes nobody requested over HTTP. */
  actor: string;
  /** The event's own reason code when it has one (PrCancelled, TestsRestarted, PrFailed, …). */
  reason: string | null;
  correlationId: string;
  causationId?: string;
  prNumber?: number;
  data: Record<string, unknown>;
}

export const historyEntryOf = (e: RecordedEvent): HistoryEntry => {
  const data = (e.data ?? {}) as Record<string, unknown>;
  const time = typeof data.at === 'string' ? data.at : e.metadata.at;
  return {
    position: e.position.toString(),
    revision: e.revision,
    eventId: e.eventId,
    time,
    recordedAt: e.recordedAt,
    type: e.type,
    actor: e.metadata.actor,
    reason: typeof data.reason === 'string' ? data.reason : null,
    correlationId: e.metadata.correlationId,
    ...(e.metadata.causationId ? { causationId: e.metadata.causationId } : {}),
    ...(typeof data.prNumber === 'number' ? { prNumber: data.prNumber } : {}),
    data,
  };
};
