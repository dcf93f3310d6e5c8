/**
 * The event store port. Adapters: SQLite (embedded default), memory (unit tests), KurrentDB, PostgreSQL.
 * Every adapter passes the same contract suite (test/contract/eventstore.contract.ts).
 */
export interface EventMetadata {
  schemaVersion: number;
  /** Token name (or "engine", "cli") that caused the event. */
  actor: string;
  correlationId: string;
  causationId?: string;
  /** ISO time from the injected clock when the command was decided. */
  at: string;
  [key: string]: unknown;
}

export interface NewEvent {
  /** Generated before the append, so a retried append of the same ids is recognised. */
  eventId: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

export interface RecordedEvent<D = unknown> {
  streamId: string;
  /** 0-based position inside the stream. */
  revision: number;
  /** Global position: strictly increasing in commit order across all streams; not necessarily contiguous. */
  position: bigint;
  eventId: string;
  type: string;
  data: D;
  metadata: EventMetadata;
  /** ISO time the store recorded the event. */
  recordedAt: string;
}

/** A concrete revision is the revision of the last event the caller has seen. */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: number;
  /** Global position of the last event appended. */
  position: bigint;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, found ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Deliver events strictly after this position; null means from the very start. */
  fromPosition: bigint | null;
  /** Called with batches in position order; the next batch waits for the returned promise. */
  onEvents: (events: RecordedEvent[]) => Promise<void>;
  /** Called when the subscription fails for good (after the adapter's own retries). */
  onError?: (err: Error) => void;
  /** Largest batch handed to onEvents. */
  batchSize?: number;
}

export interface EventStore {
  /**
   * Appends atomically. Throws WrongExpectedRevisionError when the stream is not at `expected`.
   * Re-appending events whose ids are already in the stream, at the same revision, returns the
   * original result and writes nothing (an HTTP retry after a lost answer is harmless).
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * The stream's events from `fromRevision` (inclusive, default 0), at most `maxCount` of them when
   * given; [] when the stream does not exist. A caller paging must accept more than it asked for.
   */
  readStream(streamId: string, fromRevision?: number, maxCount?: number): Promise<RecordedEvent[]>;
  /** Up to `maxCount` events after `fromPosition` (exclusive; null = from the start), in position order. */
  readAll(fromPosition: bigint | null, maxCount: number): Promise<RecordedEvent[]>;
  /** Position of the newest event, or null for an empty store. */
  headPosition(): Promise<bigint | null>;
  /** Catch-up then live subscription to every stream. */
  subscribe(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
}
