import type { Pool, PoolClient, PoolConfig } from 'pg';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent, RecordedEvent, SubscribeOptions, Subscription } from '../port';
import { prefixEnd, RETENTION_BATCH, type DropOptions, type DroppedStreams, type StreamRetention } from '../retention-port';
import { AppendSignal } from '../shared/append-signal';
import { defaultBackoff } from '../shared/backoff';
import { preparePending, type PendingAppend } from '../shared/pending-append';
import { PollingSubscription } from '../shared/polling-subscription';
import { SubscriptionSet } from '../shared/subscription-set';
import { assumedState, planBatch, type BatchPlan, type StoreState } from './batch-plan';
import { AppendListener } from './listener';
import { openMigratedPool } from './migrate';
import { ReadAhead } from './read-ahead';
import { withConnection } from './pooled';
import { advisoryLockKey, notifyChannel, quoteSchema } from './schema';
import { appendParameters, committedRows, statements, toRecorded, toRow, type EventTuple } from './statements';

export interface PostgresEventStoreOptions {
  /** e.g. `postgres://railyard@db.internal:5432/railyard`; TLS and passwords as libpq URLs take them. */
  url: string;
  /** Schema holding the tables (created on start); several installations may share one database. */
  schema?: string;
  /** Connections for reads and the group commit; the LISTEN connection is one more. */
  poolSize?: number;
  /** How often an idle subscription reads even without a notification (the safety net for lost ones). */
  pollIntervalMs?: number;
  /**
   * A session idle inside a transaction this long is ended by the server, so a writer that stalls
   * (a paused VM, a half-open socket) cannot hold the store-wide append lock for ever.
   */
  idleInTransactionTimeoutMs?: number;
  /** How long an append waits for the append lock before its batch fails (the caller may retry). */
  lockTimeoutMs?: number;
  /**
   * Reads of the log go through `ReadAhead` (the next full page fetched while the reader folds this
   * one, one read shared by readers asking at once, this process's committed rows handed over).
   * `false` is the simple design it is judged against: every readAll is its own query (D335).
   */
  readAhead?: boolean;
  now?: () => Date;
}

export const DEFAULT_POSTGRES_SCHEMA = 'railyard';

/** A committed batch: its decisions, and the position its first event followed. */
interface Settled {
  plan: BatchPlan;
  base: bigint;
}

/**
 * The networked event store. Appends made in one turn of the event loop are group-committed: decided
 * together on the state they expect (or, for expected `any`, on what is committed), then inserted by
 * one statement that takes a store-wide advisory lock and re-checks that state. Positions are assigned under the lock, so they are
 * contiguous and commit in position order, and a reader paging by position can never pass an event
 * that commits later with a smaller one (docs/decisions.md, D40). Subscriptions poll, woken by
 * LISTEN/NOTIFY.
 */
export class PostgresEventStore implements EventStore, StreamRetention {
  private readonly signal = new AppendSignal();
  private readonly readPage = async (after: bigint, max: number) =>
    (await this.tuples('ry_read_all', this.sql.readAll, [after.toString(), max])).map(toRow);
  private readonly readAhead: ReadAhead<ReturnType<typeof toRow>> | null;
  private readonly subscriptions = new SubscriptionSet();
  private readonly sql: ReturnType<typeof statements>;
  private readonly lockKey: string;
  private readonly lockStatement: string;
  private readonly listener: AppendListener;
  private readonly now: () => Date;
  private readonly pollIntervalMs: number;
  private pending: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    listenConfig: PoolConfig,
    readonly schema: string,
    options: PostgresEventStoreOptions,
  ) {
    this.sql = statements(quoteSchema(schema));
    this.lockKey = advisoryLockKey(schema, 'append').toString();
    // A number computed here, never input: safe to put in the text of a simple (multi-statement) query.
    this.lockStatement = `BEGIN; SELECT pg_advisory_xact_lock(${this.lockKey})`;
    this.listener = new AppendListener(listenConfig, notifyChannel(schema), this.signal, defaultBackoff);
    this.now = options.now ?? (() => new Date());
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.readAhead = options.readAhead === false ? null : new ReadAhead(this.readPage, () => this.signal.appendCount);
  }

  /** Connects and brings the schema up to date (one process migrates, the others wait for it). */
  static async open(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
    quoteSchema(schema);
    const session: PoolConfig = {
      connectionString: options.url,
      keepAlive: true,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 10_000,
      lock_timeout: options.lockTimeoutMs ?? 15_000,
    };
    const pool = await openMigratedPool({ ...session, application_name: 'railyard', max: options.poolSize ?? 4 }, schema);
    return new PostgresEventStore(pool, { ...session, application_name: 'railyard-listen' }, schema, options);
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    const prepared = preparePending(streamId, events, expected);
    return new Promise((resolve, reject) => {
      this.pending.push({ ...prepared, resolve, reject });
      // setImmediate: every append made by this turn's I/O callbacks joins the first batch.
      this.flushing ??= new Promise<void>((next) => setImmediate(next)).then(() => this.drain());
    });
  }

  async readStream(streamId: string, fromRevision = 0, maxCount?: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    const from = Math.max(0, fromRevision);
    const tuples =
      maxCount === undefined
        ? await this.tuples('ry_read_stream', this.sql.readStream, [streamId, from])
        : await this.tuples('ry_read_stream_page', this.sql.readStreamPage, [streamId, from, maxCount]);
    return tuples.map(toRecorded);
  }

  async readAll(fromPosition: bigint | null, maxCount: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    if (maxCount <= 0) return [];
    const after = fromPosition ?? 0n;
    const max = Math.floor(maxCount);
    const rows = this.readAhead ? await this.readAhead.page(after, max) : await this.readPage(after, max);
    return rows.map((row) => toRecorded(row.tuple));
  }

  async headPosition(): Promise<bigint | null> {
    this.assertOpen();
    const { rows } = await this.pool.query<{ head: string | null }>(this.sql.head);
    const head = rows[0]?.head ?? null;
    return head === null ? null : BigInt(head);
  }

  async dropStreamsBefore(prefix: string, before: Date, options: DropOptions = {}): Promise<DroppedStreams> {
    this.assertOpen();
    const max = Math.max(1, options.maxStreams ?? RETENTION_BATCH);
    const after = options.after !== undefined && options.after > prefix ? options.after : prefix;
    // Found without the lock, deleted under the append lock with the age checked again, so the newest
    // event cannot change between the check and the delete.
    const { rows } = await this.pool.query<{ s: string }>(this.sql.oldStreams, [prefix, after, prefixEnd(prefix), before, max]);
    const candidates = rows.map((r) => r.s);
    const next = candidates.length < max ? null : (candidates.at(-1) ?? null);
    if (candidates.length === 0) return { streams: 0, events: 0, bytes: 0, next };
    const dropped = await withConnection(this.pool, async (client) => {
      await client.query(this.lockStatement);
      try {
        const {
          rows: [counts],
        } = await client.query<{ streams: number; events: string; bytes: string }>(this.sql.dropStreams, [
          candidates,
          before,
          options.keepFrom?.toString() ?? null,
        ]);
        await client.query('COMMIT');
        return counts;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
    return { streams: dropped?.streams ?? 0, events: Number(dropped?.events ?? 0), bytes: Number(dropped?.bytes ?? 0), next };
  }

  subscribe(options: SubscribeOptions): Subscription {
    this.assertOpen();
    this.listener.start();
    // The listener turns every NOTIFY into the signal; while it is down, the poll interval bounds the wait.
    const source = {
      readAfter: (after: bigint | null, max: number) => this.readAll(after, max),
      signal: this.signal,
      signalsEveryAppend: true,
    };
    return this.subscriptions.track(new PollingSubscription(source, options, this.pollIntervalMs, defaultBackoff));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.subscriptions.closeAll();
    this.closed = true;
    // Appends accepted before close are committed, not dropped.
    await this.flushing;
    await this.listener.stop();
    await this.pool.end();
  }

  /** Commits batches until nothing is pending; appends arriving meanwhile form the next batch. */
  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await this.commit(batch);
    }
    this.flushing = null;
  }

  private async commit(batch: PendingAppend[]): Promise<void> {
    let settled: Settled;
    try {
      settled = await withConnection(this.pool, async (client) => {
        const optimistic = await this.decideAndInsert(client, batch, assumedState(batch) ?? (await this.stateFor(client, batch)));
        if (optimistic) return optimistic;
        // The store was not as the batch was decided on (another writer, a retried append): decide
        // again on what is stored, holding the lock from the start so nobody can overtake.
        await client.query(this.lockStatement);
        try {
          const locked = await this.decideAndInsert(client, batch, await this.stateFor(client, batch));
          if (!locked) throw new Error('event store: append refused its own checks while holding the append lock');
          await client.query('COMMIT');
          return locked;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      });
    } catch (err) {
      // Nothing of the batch is known to stand (a lost commit answer included): every caller hears
      // of the failure, and a retry with the same event ids is recognised if it did commit.
      for (const p of batch) p.reject(err);
      return;
    }
    const { plan, base } = settled;
    if (plan.rows.length > 0) {
      this.signal.notify(base + BigInt(plan.rows.length));
      this.readAhead?.offer(base, committedRows(plan, base));
    }
    plan.outcomes.forEach((outcome, i) => {
      const p = batch[i] as PendingAppend;
      if ('error' in outcome) p.reject(outcome.error);
      else p.resolve(outcome.relative ? { ...outcome.result, position: base + outcome.result.position } : outcome.result);
    });
  }

  /**
   * Decides the batch on `state`, then inserts it with one statement that takes the append lock and
   * re-checks what the decisions took for granted: the lock is held for one statement and its commit.
   * Null when the store was not so (nothing was written).
   */
  private async decideAndInsert(client: PoolClient, batch: readonly PendingAppend[], state: StoreState): Promise<Settled | null> {
    const plan = planBatch(batch, state, this.now);
    if (plan.rows.length === 0) return { plan, base: 0n };
    const { rows } = await client.query<{ base: string | null }>({
      name: 'ry_append',
      text: this.sql.append,
      values: [this.lockKey, ...appendParameters(plan)],
    });
    const base = rows[0]?.base ?? null;
    return base === null ? null : { plan, base: BigInt(base) };
  }

  private async stateFor(client: PoolClient, batch: readonly PendingAppend[]): Promise<StoreState> {
    const ids = batch.flatMap((p) => p.events.map((e) => e.eventId));
    const streams = [...new Set(batch.map((p) => p.streamId))];
    const { rows } = await client.query<[string, string | null, string | null, string | null, string | null]>({
      name: 'ry_state',
      text: this.sql.state,
      values: [ids, streams],
      rowMode: 'array',
    });
    const state: StoreState = { found: new Map(), lastRevision: new Map() };
    for (const [kind, key, streamId, revision, position] of rows) {
      if (kind === 'e' && key !== null && streamId !== null && revision !== null && position !== null) {
        state.found.set(key, { streamId, revision: Number(revision), position: BigInt(position) });
      } else if (kind === 's' && key !== null && revision !== null) {
        state.lastRevision.set(key, Number(revision));
      }
    }
    return state;
  }

  private async tuples(name: string, text: string, values: unknown[]): Promise<EventTuple[]> {
    const { rows } = await this.pool.query<EventTuple>({ name, text, values, rowMode: 'array' });
    return rows;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}
