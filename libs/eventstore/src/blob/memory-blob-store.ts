import type { BlobStore, ExpiredBlobs } from '../blob-port';
import { assertBlobName, assertBlobSpace, isBlobName, isDigest, sha256Hex } from './digest';

/** Blobs in a Map, for unit tests and the ephemeral mode. Stores copies, hands out copies. */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();
  private readonly named = new Map<string, { bytes: Buffer; at: number }>();

  async put(bytes: Buffer): Promise<string> {
    const digest = sha256Hex(bytes);
    if (!this.blobs.has(digest)) this.blobs.set(digest, Buffer.from(bytes));
    return digest;
  }

  async get(digest: string): Promise<Buffer | null> {
    if (!isDigest(digest)) return null;
    const bytes = this.blobs.get(digest);
    return bytes ? Buffer.from(bytes) : null;
  }

  async putNamed(name: string, bytes: Buffer): Promise<void> {
    assertBlobName(name);
    this.named.set(name, { bytes: Buffer.from(bytes), at: Date.now() });
  }

  async getNamed(name: string): Promise<Buffer | null> {
    if (!isBlobName(name)) return null;
    const stored = this.named.get(name);
    return stored ? Buffer.from(stored.bytes) : null;
  }

  async expireNamed(space: string, before: Date, note: Buffer): Promise<ExpiredBlobs> {
    assertBlobSpace(space);
    const expired = { blobs: 0, bytes: 0 };
    for (const [name, stored] of this.named) {
      if (!name.startsWith(`${space}/`) || stored.at >= before.getTime() || stored.bytes.equals(note)) continue;
      expired.blobs++;
      expired.bytes += stored.bytes.length - note.length;
      this.named.set(name, { bytes: Buffer.from(note), at: stored.at });
    }
    return expired;
  }

  async close(): Promise<void> {
    this.blobs.clear();
    this.named.clear();
  }
}
