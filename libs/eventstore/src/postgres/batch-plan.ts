import type { AppendResult } from '../port';
import { assertExpectedRevision, resolveRepeatedAppend, type StoredEventRef } from '../shared/append-rules';
import type { PendingAppend } from '../shared/pending-append';

/** What the database holds for a batch's streams and event ids. */
export interface StoreState {
  /** Where each of the batch's event ids already lives. */
  found: Map<string, StoredEventRef>;
  /** Last revision of each of the batch's streams that exists. */
  lastRevision: Map<string, number>;
}

/** An event to insert; its position is the batch's base (known at insert) plus `offset`. */
export interface EventRow {
  offset: bigint;
  streamId: string;
  revision: number;
  eventId: string;
  type: string;
  data: string;
  metadata: string;
  recordedAt: string;
}

/** `relative`: the result's position is an offset from the base the insert reports. */
export type Outcome = { result: AppendResult; relative: boolean } | { error: unknown };

export interface BatchPlan {
  rows: EventRow[];
  outcomes: Outcome[];
  /**
   * What the decisions assumed of the streams written to: their last revision (null: no stream).
   * The insert re-checks it under the append lock and refuses the batch if any moved.
   */
  checks: { streams: string[]; revisions: (number | null)[] };
}

/**
 * Decides every append of a batch in order, as if each were its own transaction: an append sees the
 * ones accepted before it in the batch, and a refused one writes nothing and touches no other. The
 * rules are the shared ones (shared/append-rules.ts); only the bookkeeping is here. Positions are
 * offsets 1, 2, 3, … after a base the database assigns under the store-wide append lock.
 */
export function planBatch(batch: readonly PendingAppend[], state: StoreState, now: () => Date): BatchPlan {
  const found = new Map(state.found);
  const lastRevision = new Map(state.lastRevision);
  const inBatch = new Set<string>();
  const checks = new Map<string, number | null>();
  const rows: EventRow[] = [];
  const outcomes = batch.map((p): Outcome => {
    try {
      const refs = p.events.map((e) => found.get(e.eventId));
      const repeated = resolveRepeatedAppend(p.streamId, p.events, p.expected, refs);
      if (repeated) return { result: repeated, relative: inBatch.has(p.events[p.events.length - 1]?.eventId ?? '') };
      const last = lastRevision.get(p.streamId);
      assertExpectedRevision(p.streamId, p.expected, last ?? 'no_stream');
      if (!checks.has(p.streamId)) checks.set(p.streamId, state.lastRevision.get(p.streamId) ?? null);
      const first = last === undefined ? 0 : last + 1;
      const recordedAt = now().toISOString();
      p.events.forEach((event, i) => {
        const [data, metadata] = p.payloads[i] as [string, string];
        const row = {
          offset: BigInt(rows.length + 1),
          streamId: p.streamId,
          revision: first + i,
          eventId: event.eventId,
          type: event.type,
          data,
          metadata,
          recordedAt,
        };
        rows.push(row);
        inBatch.add(event.eventId);
        found.set(event.eventId, { streamId: p.streamId, revision: row.revision, position: row.offset });
      });
      const nextRevision = first + p.events.length - 1;
      lastRevision.set(p.streamId, nextRevision);
      return { result: { nextRevision, position: BigInt(rows.length) }, relative: true };
    } catch (error) {
      return { error };
    }
  });
  return { rows, outcomes, checks: { streams: [...checks.keys()], revisions: [...checks.values()] } };
}
