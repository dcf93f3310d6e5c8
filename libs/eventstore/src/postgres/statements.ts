import type { EventMetadata, RecordedEvent } from '../port';
import type { BatchPlan } from './batch-plan';

// Qualified, so ORDER BY and WHERE below mean the bigint columns and not these text outputs of the
// same name. recorded_at is formatted by the server as toISOString() would: a quarter less client CPU
// per event read than the driver's Date parsing (docs/benchmarks.md).
// data and metadata come as text and are parsed per reader, so readers sharing one read (ReadAhead)
// never share objects.
const COLUMNS = `e.position::text, e.stream_id, e.revision::text, e.event_id, e.type, e.data::text, e.metadata::text,
  to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The SQL of the store, for one quoted schema name. Each is used as a named (prepared) statement:
 * the server parses and plans it once per connection. Names need only be unique per pool, and
 * every store object has a pool of its own.
 */
export const statements = (q: string) => ({
  readStream: `SELECT ${COLUMNS} FROM ${q}.events e WHERE e.stream_id = $1 AND e.revision >= $2 ORDER BY e.revision`,
  readStreamPage: `SELECT ${COLUMNS} FROM ${q}.events e WHERE e.stream_id = $1 AND e.revision >= $2 ORDER BY e.revision LIMIT $3`,
  readAll: `SELECT ${COLUMNS} FROM ${q}.events e WHERE e.position > $1 ORDER BY e.position LIMIT $2`,
  head: `SELECT max(position)::text AS head FROM ${q}.events`,
  /**
   * Everything a batch's decisions need, in one round trip: where its event ids already live and the
   * last revision of each of its streams (an index probe each).
   */
  state: `
    SELECT 'e', event_id, stream_id, revision::text, position::text FROM ${q}.events WHERE event_id = ANY($1::text[])
    UNION ALL
    SELECT 's', s.id, NULL, (SELECT max(e.revision) FROM ${q}.events e WHERE e.stream_id = s.id)::text, NULL
      FROM unnest($2::text[]) AS s(id)`,
  /**
   * Streams with the prefix (between $1 and $3, after $2) whose newest event is older than $4, $5 at
   * most. A walk of the code-point index, one probe per stream id, with the newest time read from the
   * same index: a batch costs the streams it passes, never a scan of the log (a GROUP BY over the prefix
   * reads every status event for each batch).
   */
  oldStreams: `
    WITH RECURSIVE ids(s) AS (
      (SELECT stream_id COLLATE "C" FROM ${q}.events
        WHERE stream_id COLLATE "C" >= $1 AND stream_id COLLATE "C" > $2 AND stream_id COLLATE "C" < $3
        ORDER BY stream_id COLLATE "C" LIMIT 1)
      UNION ALL
      SELECT (SELECT e.stream_id COLLATE "C" FROM ${q}.events e
               WHERE e.stream_id COLLATE "C" > ids.s AND e.stream_id COLLATE "C" < $3
               ORDER BY e.stream_id COLLATE "C" LIMIT 1)
        FROM ids WHERE ids.s IS NOT NULL
    )
    SELECT s FROM ids
     WHERE s IS NOT NULL
       AND (SELECT e.recorded_at FROM ${q}.events e WHERE e.stream_id COLLATE "C" = ids.s
             ORDER BY e.stream_id COLLATE "C" DESC, e.recorded_at DESC LIMIT 1) < $4
     LIMIT $5`,
  /**
   * Under the append lock: deletes those of the streams $1 still older than $2 whose last event is
   * before the store's newest (an append then takes the next position after it, never a dropped one)
   * and before $3 when given (DropOptions.keepFrom).
   */
  dropStreams: `
    WITH old AS (
      SELECT stream_id, count(*) AS events, sum(octet_length(data::text) + octet_length(metadata::text)) AS bytes
        FROM ${q}.events WHERE stream_id = ANY($1::text[])
       GROUP BY stream_id
      HAVING max(recorded_at) < $2 AND max(position) < least((SELECT max(position) FROM ${q}.events), $3::bigint)
    ), gone AS (
      DELETE FROM ${q}.events e USING old WHERE e.stream_id = old.stream_id
    )
    SELECT count(*)::int AS streams, coalesce(sum(events), 0)::text AS events, coalesce(sum(bytes), 0)::text AS bytes FROM old`,
  append: `SELECT ${q}.append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)::text AS base`,
});

/** The append function's parameters after the lock key: the checks, then one array per column. */
export function appendParameters(plan: BatchPlan): unknown[] {
  const { rows, checks } = plan;
  return [
    checks.streams,
    checks.revisions.map((r) => (r === null ? null : String(r))),
    rows.map((r) => r.streamId),
    rows.map((r) => String(r.revision)),
    rows.map((r) => r.eventId),
    rows.map((r) => r.type),
    rows.map((r) => r.data),
    rows.map((r) => r.metadata),
    rows.map((r) => r.recordedAt),
  ];
}

/** A row as the driver hands it over in array mode: every column text. */
export type EventTuple = [string, string, string, string, string, string, string, string];

/** A row read from the log, not yet turned into an event (readers sharing the read each turn it). */
export interface LogRow {
  position: bigint;
  tuple: EventTuple;
}

export const toRow = (tuple: EventTuple): LogRow => ({ position: BigInt(tuple[0]), tuple });

export function toRecorded([position, streamId, revision, eventId, type, data, metadata, recordedAt]: EventTuple): RecordedEvent {
  return {
    streamId,
    revision: Number(revision),
    position: BigInt(position),
    eventId,
    type,
    data: JSON.parse(data) as unknown,
    metadata: JSON.parse(metadata) as EventMetadata,
    recordedAt,
  };
}

/** A committed batch's rows as a read of the log returns them, byte for byte (positions after `base`). */
export const committedRows = (plan: BatchPlan, base: bigint): LogRow[] =>
  plan.rows.map((r) =>
    toRow([String(base + r.offset), r.streamId, String(r.revision), r.eventId, r.type, r.data, r.metadata, r.recordedAt]),
  );
