import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * A SQLite file of the data dir holding what the events hold (snapshots): as private as the event
 * log, in WAL with full syncs, so a write that returned survives a crash.
 */
export const openPrivateSqlite = (file: string): Database.Database => {
  const db = new Database(file);
  chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return db;
};
