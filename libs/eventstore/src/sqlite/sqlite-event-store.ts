import { SubscriptionSet } from '../shared/subscription-set';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../port';
import { prefixEnd, RETENTION_BATCH, type DropOptions, type DroppedStreams, type StreamRetention } from '../retention-port';
import { assertExpectedRevision, resolveRepeatedAppend, type StoredEventRef } from '../shared/append-rules';
import { AppendSignal, appendSignalForFile } from '../shared/append-signal';
import { defaultBackoff } from '../shared/backoff';
import { CommittedTail } from '../shared/committed-tail';
import { preparePending, type PendingAppend } from '../shared/pending-append';
import { PollingSubscription, type PollSource } from '../shared/polling-subscription';
import { fileWakeFor } from './file-wake';
import { CREATE_SCHEMA, SCHEMA_VERSION } from './schema';

/** Either case is accepted: environment variables tend to arrive lower-case. */
export type SqliteSynchronous = 'FULL' | 'NORMAL' | 'full' | 'normal';

export interface SqliteEventStoreOptions {
  /** Database file; its directory is created when missing. */
  file: string;
  /**
   * FULL (default) syncs the WAL on every commit, so an acknowledged append survives power loss.
   * NORMAL survives a process crash but may lose the last commits on power loss; it is faster.
   */
  synchronous?: SqliteSynchronous;
  /** How long a writer waits for another process's write lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** How often an idle subscription looks for appends made by other processes. */
  pollIntervalMs?: number;
  now?: () => Date;
  /**
   * Whether a commit hands its rows to the subscriptions it wakes, and a short page ends the log while
   * this process is the file's only writer (D48; default). Off: every subscription reads the file and
   * reads again to find the end (`RAILYARD_SQLITE_HAND_OVER=off`, D333).
   */
  handOver?: boolean;
}

interface EventRow {
  global_position: bigint;
  stream_id: string;
  revision: bigint;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

interface StreamAge {
  newest: string | null;
  last: bigint | null;
  events: bigint;
  bytes: bigint | null;
}

type Written = { result: AppendResult; rows: EventRow[] };
type AppendOutcome = Written | { error: unknown };

interface RefRow {
  stream_id: string;
  revision: bigint;
  global_position: bigint;
}

const COLUMNS = 'global_position, stream_id, revision, event_id, type, data, metadata, recorded_at';

/**
 * The embedded event store: one SQLite file in WAL mode. Several processes may share the file.
 * Appends are group-committed: those made in one turn of the event loop share one BEGIN IMMEDIATE
 * transaction (so one WAL sync under FULL), each inside its own savepoint that checks its expected
 * revision, so one append's refusal never touches another's events.
 */
export class SqliteEventStore implements EventStore, StreamRetention {
  private readonly db: Database.Database;
  private readonly signal: AppendSignal;
  /** Null for an in-memory database, which no other process can append to. */
  private readonly file: string | null;
  private readonly subscriptions = new SubscriptionSet();
  private readonly committed: CommittedTail<EventRow>;
  private readonly handOver: boolean;
  private readonly now: () => Date;
  private readonly pollIntervalMs: number;
  private readonly statements;
  private readonly appendTx;
  private readonly groupTx;
  private pending: PendingAppend[] = [];
  private closed = false;

  constructor(options: SqliteEventStoreOptions) {
    this.now = options.now ?? (() => new Date());
    this.pollIntervalMs = options.pollIntervalMs ?? 25;
    const inMemory = options.file === ':memory:' || options.file === '';
    this.file = inMemory ? null : resolve(options.file);
    this.signal = this.file === null ? new AppendSignal() : appendSignalForFile(this.file);
    this.committed = new CommittedTail(() => this.signal.appendCount);
    this.handOver = options.handOver ?? true;
    if (!inMemory) {
      // Private from the start: SQLite would create the file (and its -wal and -shm, which copy its
      // mode) world-readable. An empty file is a new database to SQLite. Created only when missing:
      // closing a descriptor of a file drops every POSIX lock this process holds on it, including the
      // shared lock another connection here keeps (a second store on the same file), and without it another
      // process may take the log as unused and delete its write-ahead log under us.
      mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
      createIfMissing(options.file);
    }
    this.db = new Database(options.file, { timeout: options.busyTimeoutMs ?? 5_000 });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous?.toUpperCase() === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
      this.migrate();
    } catch (err) {
      this.db.close();
      throw err;
    }
    this.statements = this.prepare();
    this.appendTx = this.db.transaction((streamId: string, events: NewEvent[], expected: ExpectedRevision, payloads: [string, string][]) =>
      this.appendInTransaction(streamId, events, expected, payloads),
    );
    this.groupTx = this.db.transaction((batch: PendingAppend[]): AppendOutcome[] =>
      batch.map((p) => {
        try {
          // Nested inside the group's transaction, better-sqlite3 runs this in a savepoint.
          return this.appendTx(p.streamId, p.events, p.expected, p.payloads);
        } catch (error) {
          // SQLite may have rolled back the whole transaction (disk full, I/O error): nothing of the group stands.
          if (!this.db.inTransaction) throw error;
          return { error };
        }
      }),
    );
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    const prepared = preparePending(streamId, events, expected);
    return new Promise((resolve, reject) => {
      this.pending.push({ ...prepared, resolve, reject });
      // setImmediate runs after the poll phase, so every append the I/O callbacks of this turn make joins the group.
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits every pending append in one transaction, then answers each with its own result or refusal. */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let outcomes: AppendOutcome[];
    try {
      outcomes = this.groupTx.immediate(batch);
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    const rows: EventRow[] = [];
    outcomes.forEach((outcome, i) => {
      const p = batch[i] as PendingAppend;
      if ('error' in outcome) return p.reject(outcome.error);
      rows.push(...outcome.rows);
      p.resolve(outcome.result);
    });
    const last = rows[rows.length - 1];
    if (last === undefined) return;
    this.signal.notify(last.global_position);
    if (this.handOver) this.offerCommitted(rows);
    if (this.file !== null) fileWakeFor(this.file, this.signal).announce();
  }

  /**
   * The group's rows, to the subscriptions this commit wakes (D48): a reader that had delivered up to
   * just before them is given them without reading the file. The group held the write lock, so its
   * rows are the log's next positions; should they ever not be consecutive, readers read as before.
   */
  private offerCommitted(rows: EventRow[]): void {
    const first = (rows[0] as EventRow).global_position;
    const consecutive = rows.every((row, i) => row.global_position === first + BigInt(i));
    this.committed.offer(first - 1n, consecutive ? rows : []);
  }

  async readStream(streamId: string, fromRevision = 0, maxCount?: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    const from = Math.max(0, fromRevision);
    const rows =
      maxCount === undefined
        ? this.statements.readStream.all(streamId, from)
        : this.statements.readStreamPage.all(streamId, from, maxCount);
    return (rows as EventRow[]).map(toRecorded);
  }

  async readAll(fromPosition: bigint | null, maxCount: number): Promise<RecordedEvent[]> {
    return this.readAfter(fromPosition, maxCount);
  }

  async headPosition(): Promise<bigint | null> {
    this.assertOpen();
    const row = this.statements.head.get() as { head: bigint | null };
    return row.head;
  }

  subscribe(options: SubscribeOptions): Subscription {
    this.assertOpen();
    // The watch first: whether it is on decides how the subscription reads.
    const wake = this.file === null ? null : fileWakeFor(this.file, this.signal);
    const release = wake?.acquire() ?? (() => undefined);
    const handOver = this.handOver;
    const source: PollSource = {
      readAfter: (after, max) => this.readAfter(after, max),
      signal: this.signal,
      // An in-memory database has no other writer; a file, while this process is its only one (D48).
      get signalsEveryAppend() {
        return wake === null || (handOver && wake.onlyWriterSoFar);
      },
    };
    const subscription = new PollingSubscription(source, options, this.pollIntervalMs, defaultBackoff);
    return this.subscriptions.track({
      close: async () => {
        release();
        await subscription.close();
      },
    });
  }

  async dropStreamsBefore(prefix: string, before: Date, options: DropOptions = {}): Promise<DroppedStreams> {
    this.assertOpen();
    const max = Math.max(1, options.maxStreams ?? RETENTION_BATCH);
    const cutoff = before.toISOString();
    // Found outside the write lock (a range of the stream-id index), deleted under it with the age
    // checked again: a report that arrived meanwhile keeps its stream.
    const after = options.after !== undefined && options.after > prefix ? options.after : prefix;
    const candidates = (this.statements.oldStreams.all(prefix, after, prefixEnd(prefix), cutoff, max) as { stream_id: string }[]).map(
      (r) => r.stream_id,
    );
    const dropped: DroppedStreams = { streams: 0, events: 0, bytes: 0, next: candidates.length < max ? null : (candidates.at(-1) ?? null) };
    if (candidates.length === 0) return dropped;
    this.db
      .transaction(() => {
        const { head } = this.statements.head.get() as { head: bigint | null };
        const keepFrom = options.keepFrom !== undefined && head !== null && options.keepFrom < head ? options.keepFrom : head;
        for (const streamId of candidates) {
          const s = this.statements.streamAge.get(streamId) as StreamAge;
          if (s.newest === null || s.newest >= cutoff || s.last === null || keepFrom === null || s.last >= keepFrom) continue;
          this.statements.dropStream.run(streamId);
          dropped.streams++;
          dropped.events += Number(s.events);
          dropped.bytes += Number(s.bytes ?? 0n);
        }
      })
      .immediate();
    return dropped;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.subscriptions.closeAll();
    this.closed = true;
    // Appends accepted before close are committed, not dropped.
    this.flush();
    this.db.close();
  }

  private async readAfter(after: bigint | null, maxCount: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    if (maxCount <= 0) return [];
    const from = after ?? 0n;
    const max = Math.floor(maxCount);
    return (this.committed.take(from, max) ?? (this.statements.readAll.all(from, max) as EventRow[])).map(toRecorded);
  }

  private appendInTransaction(streamId: string, events: NewEvent[], expected: ExpectedRevision, payloads: [string, string][]): Written {
    const found = events.map((e): StoredEventRef | undefined => {
      const row = this.statements.findById.get(e.eventId) as RefRow | undefined;
      return row && { streamId: row.stream_id, revision: Number(row.revision), position: row.global_position };
    });
    const repeated = resolveRepeatedAppend(streamId, events, expected, found);
    if (repeated) return { result: repeated, rows: [] };

    const { last } = this.statements.lastRevision.get(streamId) as { last: bigint | null };
    const actual = last === null ? 'no_stream' : Number(last);
    assertExpectedRevision(streamId, expected, actual);

    const recordedAt = this.now().toISOString();
    const first = actual === 'no_stream' ? 0 : actual + 1;
    const rows = events.map((event, i): EventRow => {
      const [data, metadata] = payloads[i] as [string, string];
      const revision = first + i;
      const info = this.statements.insert.run(streamId, revision, event.eventId, event.type, data, metadata, recordedAt);
      return {
        global_position: BigInt(info.lastInsertRowid),
        stream_id: streamId,
        revision: BigInt(revision),
        event_id: event.eventId,
        type: event.type,
        data,
        metadata,
        recorded_at: recordedAt,
      };
    });
    const position = rows[rows.length - 1]?.global_position ?? 0n;
    return { result: { nextRevision: first + events.length - 1, position }, rows };
  }

  private migrate(): void {
    // Immediate, so two processes opening a new file at once do not both try to create it.
    this.db
      .transaction(() => {
        const version = this.db.pragma('user_version', { simple: true }) as number;
        if (version > SCHEMA_VERSION) {
          throw new Error(`event store schema version ${version} is newer than this build understands (${SCHEMA_VERSION})`);
        }
        this.db.exec(CREATE_SCHEMA);
        if (version < SCHEMA_VERSION) this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
      })
      .immediate();
  }

  private prepare() {
    const big = (sql: string) => this.db.prepare(sql).safeIntegers(true);
    return {
      readStream: big(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision`),
      readStreamPage: big(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`),
      readAll: big(`SELECT ${COLUMNS} FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`),
      head: big('SELECT MAX(global_position) AS head FROM events'),
      findById: big('SELECT stream_id, revision, global_position FROM events WHERE event_id = ?'),
      lastRevision: big('SELECT MAX(revision) AS last FROM events WHERE stream_id = ?'),
      // In stream-id order, so the index on (stream_id, revision) serves the range and the grouping.
      oldStreams: this.db.prepare(
        `SELECT stream_id FROM events WHERE stream_id >= ? AND stream_id > ? AND stream_id < ?
          GROUP BY stream_id HAVING MAX(recorded_at) < ? ORDER BY stream_id LIMIT ?`,
      ),
      streamAge: big(
        `SELECT MAX(recorded_at) AS newest, MAX(global_position) AS last, COUNT(*) AS events,
                SUM(LENGTH(CAST(data AS BLOB)) + LENGTH(CAST(metadata AS BLOB))) AS bytes
           FROM events WHERE stream_id = ?`,
      ),
      dropStream: this.db.prepare('DELETE FROM events WHERE stream_id = ?'),
      insert: big('INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    streamId: row.stream_id,
    revision: Number(row.revision),
    position: row.global_position,
    eventId: row.event_id,
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    recordedAt: row.recorded_at,
  };
}

const createIfMissing = (file: string): void => {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
};
