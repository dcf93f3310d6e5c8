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
   * What the decisions took the streams written to to be: their last revision (null: no stream).
   * The insert re-checks it, and that the event ids are new, under the append lock.
   */
  checks: { streams: string[]; revisions: (number | null)[] };
}

/**
 * What a batch's appends take the store to be: each stream at the revision its first append in the
 * batch expects, every event id new. Null when an append accepts any revision (nothing to assume).
 * Deciding on it saves the read of the batch's state; where the database disagrees (a conflict, a
 * retried append), the insert's checks refuse the batch and it is decided again on what is stored.
 */
export function assumedState(batch: readonly PendingAppend[]): StoreState | null {
  const lastRevision = new Map<string, number>();
  const seen = new Set<string>();
  for (const p of batch) {
    if (p.expected === 'any') return null;
    if (seen.has(p.streamId)) continue;
    seen.add(p.streamId);
    if (p.expected !== 'no_stream') lastRevision.set(p.streamId, p.expected);
  }
  return { found: new Map(), lastRevision };
}

/**
 * Decides every append of a batch in order, as if each were its own transaction: an append sees the
 * ones accepted before it in the batch, and a refused one writes nothing and touches no other. The
 * rules are the shared ones (../shared/append-rules.ts); only the bookkeeping is here. Positions are
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
