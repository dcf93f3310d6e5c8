/**
 * Version 1 of the SQLite event log. `global_position` is the rowid: writers are serialised by
 * BEGIN IMMEDIATE and the row with the largest rowid is never deleted (retention drops old streams
 * only, never the newest event: D296), so a new rowid is always past every one handed out, rowid order is
 * commit order, and a poller reading "after position p" can never miss a row that commits later with a
 * smaller position.
 */
export const SCHEMA_VERSION = 1;

export const CREATE_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  global_position INTEGER PRIMARY KEY,
  stream_id       TEXT    NOT NULL,
  revision        INTEGER NOT NULL CHECK (revision >= 0),
  event_id        TEXT    NOT NULL UNIQUE,
  type            TEXT    NOT NULL,
  data            TEXT    NOT NULL CHECK (json_valid(data)),
  metadata        TEXT    NOT NULL CHECK (json_valid(metadata)),
  recorded_at     TEXT    NOT NULL,
  UNIQUE (stream_id, revision)
) STRICT;
`;
