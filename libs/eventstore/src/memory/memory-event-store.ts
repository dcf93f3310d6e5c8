import { SubscriptionSet } from '../shared/subscription-set';
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
import { RETENTION_BATCH, type DropOptions, type DroppedStreams, type StreamRetention } from '../retention-port';
import { assertAppendable, assertExpectedRevision, resolveRepeatedAppend, type StoredEventRef } from '../shared/append-rules';
import { AppendSignal } from '../shared/append-signal';
import { defaultBackoff } from '../shared/backoff';
import { toJsonText } from '../shared/json-text';
import { PollingSubscription } from '../shared/polling-subscription';

/** Events are kept as JSON text so callers never share (and mutate) the stored objects. */
interface StoredEvent {
  streamId: string;
  revision: number;
  position: bigint;
  eventId: string;
  type: string;
  data: string;
  metadata: string;
  recordedAt: string;
}

export interface MemoryEventStoreOptions {
  /** Clock for recordedAt; injected so tests can be exact. */
  now?: () => Date;
}

/** Whole-process event store for unit tests and the ephemeral mode. Positions start at 1. */
export class MemoryEventStore implements EventStore, StreamRetention {
  /** Position p at index p - 1; a dropped event leaves a hole, so positions stay where they were. */
  private readonly log: (StoredEvent | undefined)[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly byId = new Map<string, StoredEventRef>();
  private readonly signal = new AppendSignal();
  private readonly subscriptions = new SubscriptionSet();
  private readonly now: () => Date;
  private closed = false;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.now = options.now ?? (() => new Date());
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    assertAppendable(streamId, events, expected);
    const repeated = resolveRepeatedAppend(
      streamId,
      events,
      expected,
      events.map((e) => this.byId.get(e.eventId)),
    );
    if (repeated) return repeated;

    const stream = this.streams.get(streamId) ?? [];
    const actual = stream.length === 0 ? 'no_stream' : stream.length - 1;
    assertExpectedRevision(streamId, expected, actual);

    // Serialise everything before touching state, so a bad payload leaves the store unchanged.
    const recordedAt = this.now().toISOString();
    const rows: StoredEvent[] = events.map((event, i) => ({
      streamId,
      revision: stream.length + i,
      position: BigInt(this.log.length + i + 1),
      eventId: event.eventId,
      type: event.type,
      data: toJsonText(event.data, `data of event ${event.eventId}`),
      metadata: toJsonText(event.metadata, `metadata of event ${event.eventId}`),
      recordedAt,
    }));
    for (const row of rows) {
      this.log.push(row);
      stream.push(row);
      this.byId.set(row.eventId, { streamId, revision: row.revision, position: row.position });
    }
    this.streams.set(streamId, stream);
    const last = rows[rows.length - 1] as StoredEvent;
    this.signal.notify(last.position);
    return { nextRevision: last.revision, position: last.position };
  }

  async readStream(streamId: string, fromRevision = 0, maxCount?: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    const from = Math.max(0, fromRevision);
    return (this.streams.get(streamId) ?? []).slice(from, maxCount === undefined ? undefined : from + maxCount).map(toRecorded);
  }

  async readAll(fromPosition: bigint | null, maxCount: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    // Position p sits at index p - 1, so the first event after p is at index p.
    const start = fromPosition === null || fromPosition < 0n ? 0 : Number(fromPosition);
    const found: RecordedEvent[] = [];
    for (let i = start; i < this.log.length && found.length < maxCount; i++) {
      const row = this.log[i];
      if (row) found.push(toRecorded(row));
    }
    return found;
  }

  async dropStreamsBefore(prefix: string, before: Date, options: DropOptions = {}): Promise<DroppedStreams> {
    this.assertOpen();
    const max = Math.max(1, options.maxStreams ?? RETENTION_BATCH);
    const cutoff = before.toISOString();
    const after = options.after ?? '';
    const ids = [...this.streams.keys()].filter((id) => id.startsWith(prefix) && id > after).sort();
    const candidates = ids.slice(0, max);
    const dropped: DroppedStreams = { streams: 0, events: 0, bytes: 0, next: ids.length > max ? (candidates.at(-1) ?? null) : null };
    const head = BigInt(this.log.length);
    const keepFrom = options.keepFrom !== undefined && options.keepFrom < head ? options.keepFrom : head;
    for (const id of candidates) {
      const stream = this.streams.get(id) ?? [];
      const newest = stream.at(-1);
      if (!newest || newest.recordedAt >= cutoff || newest.position >= keepFrom) continue;
      for (const row of stream) {
        this.log[Number(row.position) - 1] = undefined;
        this.byId.delete(row.eventId);
        dropped.bytes += Buffer.byteLength(row.data) + Buffer.byteLength(row.metadata);
      }
      this.streams.delete(id);
      dropped.streams++;
      dropped.events += stream.length;
    }
    return dropped;
  }

  async headPosition(): Promise<bigint | null> {
    this.assertOpen();
    return this.log.length === 0 ? null : BigInt(this.log.length);
  }

  subscribe(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const source = { readAfter: (after: bigint | null, max: number) => this.readAll(after, max), signal: this.signal };
    // Every append wakes the loop, so the interval is only a safety net.
    const subscription = new PollingSubscription(source, options, 1_000, defaultBackoff);
    return this.subscriptions.track(subscription);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.subscriptions.closeAll();
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

function toRecorded(row: StoredEvent): RecordedEvent {
  return {
    streamId: row.streamId,
    revision: row.revision,
    position: row.position,
    eventId: row.eventId,
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    recordedAt: row.recordedAt,
  };
}
