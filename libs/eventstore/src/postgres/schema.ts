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
    name: 'events table, notify trigger',
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
`,
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
