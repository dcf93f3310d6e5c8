/**
 * Content-addressed storage for large values that must not ride inside events (impacted-target
 * lists can reach 20 MiB; KurrentDB refuses events over 1 MiB). Events carry the digest.
 */
export interface BlobStore {
  /** Stores the bytes under their SHA-256 hex digest and returns it. Idempotent. */
  put(bytes: Buffer): Promise<string>;
  /** The bytes stored under `digest`, or null. */
  get(digest: string): Promise<Buffer | null>;
  close(): Promise<void>;
}
