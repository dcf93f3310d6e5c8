import type { AppendResult } from '../port';
import { assertExpectedRevision, resolveRepeatedAppend, type StoredEventRef } from '../shared/append-rules';
import type { PendingAppend } from '../shared/pending-append';

/** What the database holds for a batch, read under the append lock. */
export interface StoreState {
  /** Where each of the batch's event ids already lives. */
  found: Map<string, StoredEventRef>;
  /** Last revision of each of the batch's streams that exists. */
  lastRevision: Map<string, number>;
  head: bigint;
}

export interface EventRow {
  position: bigint;
  streamId: string;
  revision: number;
  eventId: string;
  type: string;
  data: string;
  metadata: string;
  recordedAt: string;
}

export type Outcome = { result: AppendResult } | { error: unknown };

/**
 * Decides every append of a batch in order, as if each were its own transaction: an append sees the
 * ones accepted before it in the batch, and a refused one writes nothing and touches no other. The
 * rules are the shared ones (shared/append-rules.ts); only the bookkeeping is here. Positions follow
 * the head without gaps, which is safe because they are assigned under the store-wide append lock.
 */
export function planBatch(batch: readonly PendingAppend[], state: StoreState, now: () => Date): { rows: EventRow[]; outcomes: Outcome[] } {
  const found = new Map(state.found);
  const lastRevision = new Map(state.lastRevision);
  let head = state.head;
  const rows: EventRow[] = [];
  const outcomes = batch.map((p): Outcome => {
    try {
      const repeated = resolveRepeatedAppend(
        p.streamId,
        p.events,
        p.expected,
        p.events.map((e) => found.get(e.eventId)),
      );
      if (repeated) return { result: repeated };
      const last = lastRevision.get(p.streamId);
      assertExpectedRevision(p.streamId, p.expected, last ?? 'no_stream');
      const first = last === undefined ? 0 : last + 1;
      const recordedAt = now().toISOString();
      p.events.forEach((event, i) => {
        head += 1n;
        const [data, metadata] = p.payloads[i] as [string, string];
        const row = {
          position: head,
          streamId: p.streamId,
          revision: first + i,
          eventId: event.eventId,
          type: event.type,
          data,
          metadata,
          recordedAt,
        };
        rows.push(row);
        found.set(event.eventId, { streamId: p.streamId, revision: row.revision, position: head });
      });
      const nextRevision = first + p.events.length - 1;
      lastRevision.set(p.streamId, nextRevision);
      return { result: { nextRevision, position: head } };
    } catch (error) {
      return { error };
    }
  });
  return { rows, outcomes };
}
