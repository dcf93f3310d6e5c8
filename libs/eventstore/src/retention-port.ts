/**
 * Retention of whole streams the queue's own history does not need (commit statuses: docs/decisions.md
 * D296). Not every store can truncate: KurrentDB cannot list streams by prefix, so callers ask
 * `canDropStreams` and skip the sweep otherwise; KurrentDB instead gives those streams a `$maxAge`
 * as they are created (`StreamMaxAge`, D314).
 */
export interface DroppedStreams {
  streams: number;
  events: number;
  /** Bytes of the dropped events' data and metadata (JSON text), the part that grows with history. */
  bytes: number;
  /** The last stream id this call looked at, to pass as `after` to go on; null once the prefix is done. */
  next: string | null;
}

export interface DropOptions {
  /** Go on after this stream id (the previous call's `next`). */
  after?: string;
  /** Streams looked at per call, and so per transaction: the write lock is held for one batch. */
  maxStreams?: number;
  /**
   * A stream with an event at or after this position stays, whatever its age: a read-model snapshot
   * names the event at its position and is only used while the log still holds it.
   */
  keepFrom?: bigint;
}

export interface StreamRetention {
  /**
   * Deletes whole streams whose id starts with `prefix` and whose newest event was recorded before
   * `before`, one batch of them in stream-id order per call. The store's newest event is never
   * deleted, so a global position is never handed out twice (SQLite and PostgreSQL number an append
   * after the largest position left).
   */
  dropStreamsBefore(prefix: string, before: Date, options?: DropOptions): Promise<DroppedStreams>;
}

export const canDropStreams = (store: object): store is StreamRetention =>
  typeof (store as Partial<StreamRetention>).dropStreamsBefore === 'function';

/** The first string after every string that starts with `prefix` (in code-unit order): they sort in [prefix, end). */
export const prefixEnd = (prefix: string): string => {
  if (prefix.length === 0) throw new RangeError('a retention prefix must not be empty');
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
};

export const RETENTION_BATCH = 500;

/** Streams whose id starts with `prefix` keep events for `seconds` only: set by the store as it creates them (D314). */
export interface StreamMaxAge {
  prefix: string;
  seconds: number;
}

/** A store that expires the events of some streams by itself, with the rule it applies (null: none). */
export interface ExpiresStreamsByAge {
  readonly streamMaxAge: StreamMaxAge | null;
}

export const expiresStreamsByAge = (store: object): store is ExpiresStreamsByAge => 'streamMaxAge' in store;
