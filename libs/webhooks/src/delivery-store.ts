import Database from 'better-sqlite3';

/** One try at sending one message to one endpoint, as the delivery log shows it. */
export interface DeliveryAttempt {
  attemptId: number;
  endpointId: string;
  messageId: string;
  eventType: string;
  /** Log position of the event the message came from. */
  position: string;
  attempt: number;
  /** HTTP status, or null when no answer came (refused address, connection error, timeout). */
  status: number | null;
  ok: boolean;
  error?: string;
  latencyMs: number;
  /** The first bytes of the answer, to see why a receiver refused. */
  responseExcerpt: string;
  at: string;
  /** What was sent (its type and body), so it can be sent again. */
  body: string;
}

export type NewAttempt = Omit<DeliveryAttempt, 'attemptId'>;

/**
 * What delivery keeps beside the event log: per endpoint, the position up to which every message was
 * delivered (the checkpoint), and its latest attempts. Checkpoints are written only after the
 * receiver answered 2xx, so a crash re-sends (same message ids) and never skips.
 */
export interface DeliveryStore {
  /** The position delivered through; undefined when nothing was ever stored for the endpoint. */
  checkpoint(endpointId: string): Promise<bigint | null | undefined>;
  saveCheckpoint(endpointId: string, position: bigint): Promise<void>;
  record(attempt: NewAttempt): Promise<number>;
  /** Newest first. */
  attempts(endpointId: string, limit: number): Promise<DeliveryAttempt[]>;
  attempt(endpointId: string, attemptId: number): Promise<DeliveryAttempt | undefined>;
  forget(endpointId: string): Promise<void>;
  close(): Promise<void>;
}

/** Attempts kept per endpoint: the log is for looking at recent trouble, not an archive. */
export const ATTEMPTS_KEPT = 200;
/** Bytes of a receiver's answer kept in the log. */
export const EXCERPT_CHARS = 512;

interface Row {
  attempt_id: number;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  position: string;
  attempt: number;
  status: number | null;
  ok: number;
  error: string | null;
  latency_ms: number;
  response_excerpt: string;
  at: string;
  body: string;
}

const attemptOf = (r: Row): DeliveryAttempt => ({
  attemptId: r.attempt_id,
  endpointId: r.endpoint_id,
  messageId: r.message_id,
  eventType: r.event_type,
  position: r.position,
  attempt: r.attempt,
  status: r.status,
  ok: r.ok === 1,
  ...(r.error !== null ? { error: r.error } : {}),
  latencyMs: r.latency_ms,
  responseExcerpt: r.response_excerpt,
  at: r.at,
  body: r.body,
});

/**
 * The embedded shape's store: a SQLite file in the data dir, beside the events. WAL with NORMAL sync:
 * a power cut may lose its last writes, which only moves a checkpoint back (messages sent again with
 * their ids), never past a message not delivered; an fsync per checkpoint would cost more than the
 * sends (docs/benchmarks.md, "Outgoing webhooks").
 */
export class SqliteDeliveryStore implements DeliveryStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS webhook_checkpoints (endpoint_id TEXT PRIMARY KEY, position TEXT);
      CREATE TABLE IF NOT EXISTS webhook_attempts (
        attempt_id INTEGER PRIMARY KEY AUTOINCREMENT, endpoint_id TEXT NOT NULL, message_id TEXT NOT NULL,
        event_type TEXT NOT NULL, position TEXT NOT NULL, attempt INTEGER NOT NULL, status INTEGER, ok INTEGER NOT NULL,
        error TEXT, latency_ms INTEGER NOT NULL, response_excerpt TEXT NOT NULL, at TEXT NOT NULL, body TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, attempt_id);
    `);
  }

  async checkpoint(endpointId: string): Promise<bigint | null | undefined> {
    const row = this.db.prepare('SELECT position FROM webhook_checkpoints WHERE endpoint_id = ?').get(endpointId) as
      { position: string | null } | undefined;
    if (!row) return undefined;
    return row.position === null ? null : BigInt(row.position);
  }

  async saveCheckpoint(endpointId: string, position: bigint): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO webhook_checkpoints (endpoint_id, position) VALUES (?, ?) ON CONFLICT (endpoint_id) DO UPDATE SET position = excluded.position',
      )
      .run(endpointId, position.toString());
  }

  async record(a: NewAttempt): Promise<number> {
    const insert = this.db.prepare(
      `INSERT INTO webhook_attempts (endpoint_id, message_id, event_type, position, attempt, status, ok, error, latency_ms, response_excerpt, at, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const prune = this.db.prepare(
      `DELETE FROM webhook_attempts WHERE endpoint_id = ? AND attempt_id <= (
         SELECT attempt_id FROM webhook_attempts WHERE endpoint_id = ? ORDER BY attempt_id DESC LIMIT 1 OFFSET ?)`,
    );
    const id = this.db.transaction(() => {
      const info = insert.run(
        a.endpointId,
        a.messageId,
        a.eventType,
        a.position,
        a.attempt,
        a.status,
        a.ok ? 1 : 0,
        a.error ?? null,
        Math.round(a.latencyMs),
        a.responseExcerpt.slice(0, EXCERPT_CHARS),
        a.at,
        a.body,
      );
      prune.run(a.endpointId, a.endpointId, ATTEMPTS_KEPT);
      return Number(info.lastInsertRowid);
    })();
    return id;
  }

  async attempts(endpointId: string, limit: number): Promise<DeliveryAttempt[]> {
    const rows = this.db
      .prepare('SELECT * FROM webhook_attempts WHERE endpoint_id = ? ORDER BY attempt_id DESC LIMIT ?')
      .all(endpointId, limit) as Row[];
    return rows.map(attemptOf);
  }

  async attempt(endpointId: string, attemptId: number): Promise<DeliveryAttempt | undefined> {
    const row = this.db.prepare('SELECT * FROM webhook_attempts WHERE endpoint_id = ? AND attempt_id = ?').get(endpointId, attemptId) as
      Row | undefined;
    return row ? attemptOf(row) : undefined;
  }

  async forget(endpointId: string): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM webhook_attempts WHERE endpoint_id = ?').run(endpointId);
      this.db.prepare('DELETE FROM webhook_checkpoints WHERE endpoint_id = ?').run(endpointId);
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
