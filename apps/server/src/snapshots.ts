import { deserialize, serialize } from 'node:v8';
import type Database from 'better-sqlite3';
import type { EventStore } from '@railyard/eventstore';
import { errorFields, type Logger } from '@railyard/observability';
import type { Snapshottable } from '@railyard/readmodels';
import { PagedDocsTable } from './paged-docs';
import { openPrivateSqlite } from './private-sqlite';

/** The file beside the event log that holds the in-memory read models' snapshots (docs/decisions.md D252). */
export const SNAPSHOT_FILE = 'read-models.sqlite';

interface Row {
  name: string;
  schema: number;
  position: string;
  event_id: string;
  body: Buffer;
}

/** What a start found for one model: resumed from a snapshot, or rebuilt from the events, and why. */
export interface RestoreOutcome {
  name: string;
  resumedAt: bigint | null;
  why: 'resumed' | 'none' | 'older-schema' | 'not-this-log' | 'unreadable';
}

/**
 * Snapshots of the embedded server's read models, each row the model's whole body with the position it
 * covers and the id of the event at that position, written in one transaction: there is no checkpoint
 * apart from the snapshot, so a crash at any moment leaves either the old rows or the new ones, and the
 * events after the position are read again at the next start. A snapshot is used only when its schema
 * is the model's and the event at its position is the one it was taken at (a log restored from an
 * older backup, or another log, is rebuilt from, never misread).
 */
export class ReadModelSnapshots {
  private readonly db: Database.Database;
  private readonly paged: PagedDocsTable;

  constructor(file: string) {
    this.db = openPrivateSqlite(file);
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS snapshots (name TEXT PRIMARY KEY, schema INTEGER NOT NULL, position TEXT NOT NULL, event_id TEXT NOT NULL, body BLOB NOT NULL, written_at TEXT NOT NULL)',
    );
    this.paged = new PagedDocsTable(this.db);
  }

  /** Restores each model from its snapshot where one fits; the others start empty and fold the log from the start. */
  async restore(models: readonly Snapshottable[], events: EventStore, logger: Logger): Promise<RestoreOutcome[]> {
    const outcomes: RestoreOutcome[] = [];
    for (const model of models) {
      model.pageTo?.(this.paged.of(model.snapshotName));
      const outcome = await this.restoreOne(model, events);
      // Paged-out documents belong to the snapshot they were written with: a model folded from the start has none.
      if (outcome.why !== 'resumed') this.paged.clear(model.snapshotName);
      outcomes.push(outcome);
      logger.info('read model start', { model: outcome.name, from: outcome.why, position: outcome.resumedAt?.toString() ?? null });
    }
    return outcomes;
  }

  private async restoreOne(model: Snapshottable, events: EventStore): Promise<RestoreOutcome> {
    const name = model.snapshotName;
    const row = this.db.prepare('SELECT * FROM snapshots WHERE name = ?').get(name) as Row | undefined;
    if (!row) return { name, resumedAt: null, why: 'none' };
    if (row.schema !== model.snapshotSchema) return { name, resumedAt: null, why: 'older-schema' };
    const position = BigInt(row.position);
    if ((await eventIdAt(events, position)) !== row.event_id) return { name, resumedAt: null, why: 'not-this-log' };
    try {
      model.restore(position, deserialize(row.body));
    } catch {
      return { name, resumedAt: null, why: 'unreadable' };
    }
    return { name, resumedAt: position, why: 'resumed' };
  }

  /**
   * Writes every model that holds events. Each body is copied in the same turn as its position is read,
   * so it never holds half a batch. Answers the lowest position written (null when none was).
   */
  async write(models: readonly Snapshottable[], events: EventStore, logger?: Logger): Promise<bigint | null> {
    const started = performance.now();
    const taken = models.flatMap((model) => {
      const snap = model.snapshot();
      if (!snap) return [];
      const pagedOut = snap.pagedOut ?? [];
      return [
        { model, position: snap.position, body: serialize(snap.body), pagedOut, pages: this.paged.stage(model.snapshotName, pagedOut) },
      ];
    });
    const rows: Row[] = [];
    const written: typeof taken = [];
    for (const t of taken) {
      const eventId = await eventIdAt(events, t.position);
      if (eventId === undefined) continue;
      written.push(t);
      rows.push({
        name: t.model.snapshotName,
        schema: t.model.snapshotSchema,
        position: t.position.toString(),
        event_id: eventId,
        body: t.body,
      });
    }
    const upsert = this.db.prepare(
      'INSERT INTO snapshots (name, schema, position, event_id, body, written_at) VALUES (@name, @schema, @position, @event_id, @body, @at) ' +
        'ON CONFLICT(name) DO UPDATE SET schema = excluded.schema, position = excluded.position, event_id = excluded.event_id, body = excluded.body, written_at = excluded.written_at',
    );
    const at = new Date().toISOString();
    this.db.transaction(() => {
      for (const row of rows) upsert.run({ ...row, at });
      for (const t of written) t.pages();
    })();
    // Durable now: what the snapshot paged out may leave memory.
    for (const t of written) t.model.pagedOutDone?.(t.pagedOut);
    // The copy blocks the event loop: how long, and how large, is what an operator tunes the interval by.
    logger?.info('read-model snapshot written', {
      ms: Math.round(performance.now() - started),
      bytes: rows.reduce((n, r) => n + r.body.length, 0),
      pagedOut: written.reduce((n, t) => n + t.pagedOut.length, 0),
      position: rows[0]?.position ?? null,
    });
    return rows.reduce<bigint | null>((low, r) => (low === null || BigInt(r.position) < low ? BigInt(r.position) : low), null);
  }

  /** The lowest position a snapshot covers, or null with none: retention keeps the event there (D296). */
  lowestPosition(): bigint | null {
    const rows = this.db.prepare('SELECT position FROM snapshots').all() as { position: string }[];
    return rows.reduce<bigint | null>((low, r) => (low === null || BigInt(r.position) < low ? BigInt(r.position) : low), null);
  }

  close(): void {
    this.db.close();
  }
}

/** The id of the event at exactly `position`, or undefined when the log holds none there. */
const eventIdAt = async (events: EventStore, position: bigint): Promise<string | undefined> => {
  const [event] = await events.readAll(position - 1n, 1);
  return event?.position === position ? event.eventId : undefined;
};

/** A snapshottable model that says how far it has folded. */
export type SnapshotModel = Snapshottable & { checkpoint(): Promise<bigint | null> };

export interface SnapshotScheduleOptions {
  snapshots: ReadModelSnapshots;
  models: readonly SnapshotModel[];
  events: EventStore;
  logger: Logger;
  /** A new snapshot once the models are this many positions past the last one. */
  everyEvents: number;
  checkMs?: number;
}

/**
 * Writes a snapshot whenever the models have moved `everyEvents` past the last one, checked on a timer,
 * after each batch the projector applies (`afterBatch`: a long catch-up keeps the event loop too busy
 * for the timer, and pages its cold documents out as it goes, D320), and at stop.
 */
export const scheduleSnapshots = (
  o: SnapshotScheduleOptions,
  lastAt: bigint | null,
): { afterBatch(): Promise<void>; stop(): Promise<void> } => {
  let last = lastAt;
  let writing: Promise<void> = Promise.resolve();
  const due = async (every = BigInt(o.everyEvents)): Promise<boolean> => {
    let lowest: bigint | null = null;
    for (const m of o.models) {
      const at = await m.checkpoint();
      if (at === null) return false;
      if (lowest === null || at < lowest) lowest = at;
    }
    return lowest !== null && (last === null || lowest - last >= every);
  };
  const write = (): Promise<void> =>
    o.snapshots.write(o.models, o.events, o.logger).then(
      (at) => {
        if (at !== null) last = at;
      },
      (err: unknown) => void o.logger.error('writing the read-model snapshot failed', errorFields(err)),
    );
  const check = (): Promise<void> => (writing = writing.then(async () => ((await due()) ? write() : undefined)));
  const timer = setInterval(() => void check(), o.checkMs ?? 5_000);
  timer.unref();
  return {
    afterBatch: check,
    /** Stops the timer; a clean stop then saves what was folded since the last snapshot, if anything. */
    async stop() {
      clearInterval(timer);
      await writing;
      if (await due(1n)) await write();
    },
  };
};
