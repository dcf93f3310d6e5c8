import path from 'node:path';
import BetterSqlite, { type Database } from 'better-sqlite3';
import type { EngineSnapshotHead, EngineSnapshotSettings, EngineSnapshotStore, EngineSnapshotStream } from '@railyard/engine';
import type { RailyardConfig } from '@railyard/runtime';
import { openPrivateSqlite } from './private-sqlite';

/** The file beside the event log that holds the engine's snapshot (docs/decisions.md D292). */
export const ENGINE_STATE_FILE = 'engine-state.sqlite';

interface HeadRow {
  schema: number;
  position: string;
  event_id: string;
  queues: string;
}

interface StreamRow {
  stream_id: string;
  schema: number;
  revision: number;
  event_id: string;
  body: Buffer;
}

/**
 * The embedded engine's snapshot in a SQLite file of its own, written by the engine's thread: a file
 * apart from the read models' (which the server's thread writes) so neither waits on the other's lock.
 * The head and the changed streams are written in one transaction.
 */
export class EngineStateFile implements EngineSnapshotStore {
  private readonly db: Database;

  constructor(file: string) {
    this.db = openPrivateSqlite(file);
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS engine_head (id INTEGER PRIMARY KEY CHECK (id = 1), schema INTEGER NOT NULL, position TEXT NOT NULL, event_id TEXT NOT NULL, queues TEXT NOT NULL, written_at TEXT NOT NULL);' +
        'CREATE TABLE IF NOT EXISTS engine_streams (stream_id TEXT PRIMARY KEY, schema INTEGER NOT NULL, revision INTEGER NOT NULL, event_id TEXT NOT NULL, body BLOB NOT NULL);',
    );
  }

  async load(): Promise<{ head: EngineSnapshotHead | null; streams: EngineSnapshotStream[] }> {
    const head = this.db.prepare('SELECT schema, position, event_id, queues FROM engine_head WHERE id = 1').get() as HeadRow | undefined;
    const streams = this.db.prepare('SELECT stream_id, schema, revision, event_id, body FROM engine_streams').all() as StreamRow[];
    return {
      head: head
        ? { schema: head.schema, position: BigInt(head.position), eventId: head.event_id, queues: JSON.parse(head.queues) as string[] }
        : null,
      streams: streams.map((r) => ({ streamId: r.stream_id, schema: r.schema, revision: r.revision, eventId: r.event_id, body: r.body })),
    };
  }

  async save(head: EngineSnapshotHead, streams: EngineSnapshotStream[]): Promise<void> {
    const putStream = this.db.prepare(
      'INSERT INTO engine_streams (stream_id, schema, revision, event_id, body) VALUES (@streamId, @schema, @revision, @eventId, @body) ' +
        'ON CONFLICT(stream_id) DO UPDATE SET schema = excluded.schema, revision = excluded.revision, event_id = excluded.event_id, body = excluded.body',
    );
    const putHead = this.db.prepare(
      'INSERT INTO engine_head (id, schema, position, event_id, queues, written_at) VALUES (1, @schema, @position, @eventId, @queues, @at) ' +
        'ON CONFLICT(id) DO UPDATE SET schema = excluded.schema, position = excluded.position, event_id = excluded.event_id, queues = excluded.queues, written_at = excluded.written_at',
    );
    this.db.transaction(() => {
      for (const s of streams) putStream.run(s);
      putHead.run({
        schema: head.schema,
        position: head.position.toString(),
        eventId: head.eventId,
        queues: JSON.stringify(head.queues),
        at: new Date().toISOString(),
      });
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** The embedded engine's snapshots beside a SQLite log, when the engine runs and snapshots are on; none: it reads the log from its start. */
export const engineSnapshotsOf = (config: RailyardConfig): { snapshots?: EngineSnapshotSettings } => {
  if (!config.engine.enabled || config.eventStore.kind !== 'sqlite' || config.snapshotEveryEvents <= 0) return {};
  const store = new EngineStateFile(path.join(path.dirname(config.eventStore.file), ENGINE_STATE_FILE));
  return { snapshots: { store, everyEvents: config.snapshotEveryEvents } };
};

/** Where the embedded engine's snapshot stands, or null without one: retention keeps the event there (D296). */
export const engineHeadPosition = (config: RailyardConfig): bigint | null => {
  if (config.eventStore.kind !== 'sqlite') return null;
  try {
    const db = new BetterSqlite(path.join(path.dirname(config.eventStore.file), ENGINE_STATE_FILE), {
      readonly: true,
      fileMustExist: true,
    });
    try {
      const row = db.prepare('SELECT position FROM engine_head WHERE id = 1').get() as { position: string } | undefined;
      return row ? BigInt(row.position) : null;
    } finally {
      db.close();
    }
  } catch {
    // No file or no table yet: the engine has not saved a snapshot.
    return null;
  }
};
