/**
 * Storage for large values that must not ride inside events (impacted-target lists can reach
 * 20 MiB; KurrentDB refuses events over 1 MiB) and for files one node writes and another reads.
 * Content-addressed blobs are immutable and events carry their digest; named blobs are looked up by
 * a name the writer and the reader both derive (a CI check's log: docs/operations.md).
 */
export interface BlobStore {
  /** Stores the bytes under their SHA-256 hex digest and returns it. Idempotent. */
  put(bytes: Buffer): Promise<string>;
  /** The bytes stored under `digest`, or null. */
  get(digest: string): Promise<Buffer | null>;
  /**
   * Stores the bytes under `name` (isBlobName), replacing what was there: a reader sees the old bytes
   * or the new ones, never a mix. Throws RangeError for a name that is not valid.
   */
  putNamed(name: string, bytes: Buffer): Promise<void>;
  /** The bytes last stored under `name`, or null (also for a name that is not valid). */
  getNamed(name: string): Promise<Buffer | null>;
  /**
   * Replaces with `note` every named blob under `space/` (one name segment) last stored before
   * `before`, keeping the name, so a reader can tell a blob that expired from one that never was
   * (retention: docs/decisions.md D296). A blob stored again meanwhile keeps its new bytes. Answers how
   * many were replaced and the bytes that freed.
   */
  expireNamed(space: string, before: Date, note: Buffer): Promise<ExpiredBlobs>;
  close(): Promise<void>;
}

export interface ExpiredBlobs {
  blobs: number;
  bytes: number;
}
