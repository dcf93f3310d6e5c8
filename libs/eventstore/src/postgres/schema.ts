import { createHash } from 'node:crypto';

/**
 * The PostgreSQL event log, one schema per installation (default `railyard`). Every change to it is
 * a numbered migration, applied in order at start and recorded in `schema_migrations`; a migration is
 * never edited once released, a new one is added instead (docs/operations.md).
 */
export interface Migration {
  version: number;
  name: string;
  /** Statements run inside the migrating transaction, with `q` the quoted schema name. */
  sql: (q: string) => string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'events table, notify trigger, append function',
    sql: (q) => `
CREATE TABLE ${q}.events (
  position    bigint      PRIMARY KEY CHECK (position > 0),
  stream_id   text        NOT NULL,
  revision    bigint      NOT NULL CHECK (revision >= 0),
  event_id    text        NOT NULL UNIQUE,
  type        text        NOT NULL,
  data        json        NOT NULL,
  metadata    json        NOT NULL,
  recorded_at timestamptz NOT NULL,
  UNIQUE (stream_id, revision)
);
CREATE FUNCTION ${q}.notify_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('railyard_events_' || TG_TABLE_SCHEMA, '');
  RETURN NULL;
END $$;
CREATE TRIGGER events_appended AFTER INSERT ON ${q}.events
  FOR EACH STATEMENT EXECUTE FUNCTION ${q}.notify_events_appended();
-- Inserts a decided batch under the store-wide append lock (docs/decisions.md, D40), so the lock is
-- held for one statement and the commit. Returns the position before the batch's first event, or
-- NULL without writing when a checked stream's last revision (NULL: no stream) or an event id
-- changed since the batch was decided; the caller then decides again.
CREATE FUNCTION ${q}.append_events(
  lock_key bigint, check_streams text[], check_revisions bigint[],
  stream_ids text[], revisions bigint[], event_ids text[], types text[],
  data json[], metadata json[], recorded_at timestamptz[]
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  base bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(lock_key);
  -- A volatile function's statements each see what committed before them: after the lock, all of it.
  IF EXISTS (
    SELECT 1 FROM unnest(check_streams, check_revisions) AS c(stream_id, revision)
     WHERE (SELECT max(e.revision) FROM ${q}.events e WHERE e.stream_id = c.stream_id) IS DISTINCT FROM c.revision
  ) OR EXISTS (SELECT 1 FROM ${q}.events e WHERE e.event_id = ANY (event_ids)) THEN
    RETURN NULL;
  END IF;
  SELECT coalesce(max(e.position), 0) INTO base FROM ${q}.events e;
  INSERT INTO ${q}.events (position, stream_id, revision, event_id, type, data, metadata, recorded_at)
  SELECT base + r.n, r.stream_id, r.revision, r.event_id, r.type, r.data, r.metadata, r.recorded_at
    FROM unnest(stream_ids, revisions, event_ids, types, data, metadata, recorded_at)
         WITH ORDINALITY AS r(stream_id, revision, event_id, type, data, metadata, recorded_at, n);
  RETURN base;
END $$;
`,
  },
  {
    version: 2,
    name: 'blob tables',
    // Blobs beside the events, so one backup of the database holds both (docs/operations.md). bytea
    // holds up to 1 GiB; the API's limits keep every blob far below (20 MiB uploads, 4 MiB CI logs).
    sql: (q) => `
CREATE TABLE ${q}.blobs (
  digest    text        PRIMARY KEY CHECK (digest ~ '^[0-9a-f]{64}$'),
  bytes     bytea       NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${q}.named_blobs (
  name      text        PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 512),
  bytes     bytea       NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 3,
    name: 'the append notification names the last position',
    // Subscriptions skip a wake-up for events they already hold (the store's own commit wakes them
    // first): one read fewer per subscription per append (docs/decisions.md, D43). Listeners built
    // before this version ignore the payload.
    sql: (q) => `
CREATE OR REPLACE FUNCTION ${q}.notify_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('railyard_events_' || TG_TABLE_SCHEMA, (SELECT max(position)::text FROM appended));
  RETURN NULL;
END $$;
DROP TRIGGER events_appended ON ${q}.events;
CREATE TRIGGER events_appended AFTER INSERT ON ${q}.events REFERENCING NEW TABLE AS appended
  FOR EACH STATEMENT EXECUTE FUNCTION ${q}.notify_events_appended();
`,
  },
  {
    version: 4,
    name: 'stream ids in code-point order, for retention',
    // Retention drops streams by id prefix (docs/decisions.md, D296). Under a database collation other
    // than C a range of the (stream_id, revision) index is not the prefix's streams (en_US skips
    // punctuation), so this index orders ids by code point; recorded_at beside it answers a stream's
    // age from the index. Building it on a large log takes a while once, at the upgrade.
    sql: (q) => `CREATE INDEX events_stream_id_c ON ${q}.events ((stream_id COLLATE "C"), recorded_at);`,
  },
];

/** 47 characters at most, so the notify channel's name stays within PostgreSQL's 63. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,46}$/;

/** The schema name goes into SQL text, so only plain lower-case identifiers are accepted. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new RangeError(`PostgreSQL schema name must match ${SCHEMA_NAME.source}, not "${schema}"`);
  }
  return `"${schema}"`;
}

/** The channel the insert trigger notifies; the trigger builds the same name from the table's schema. */
export const notifyChannel = (schema: string): string => `railyard_events_${schema}`;

export type LockPurpose = 'append' | 'migrate';

/**
 * The advisory lock key of one purpose in one schema: 64 bits of a hash, so two installations in
 * one database (or another application's locks) do not share a key.
 */
export function advisoryLockKey(schema: string, purpose: LockPurpose): bigint {
  return createHash('sha256').update(`railyard:${schema}:${purpose}`).digest().readBigInt64BE(0);
}
