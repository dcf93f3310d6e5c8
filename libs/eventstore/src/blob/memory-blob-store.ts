import type { BlobStore } from '../blob-port';
import { assertBlobName, isBlobName, isDigest, sha256Hex } from './digest';

/** Blobs in a Map, for unit tests and the ephemeral mode. Stores copies, hands out copies. */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();
  private readonly named = new Map<string, Buffer>();

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
    this.named.set(name, Buffer.from(bytes));
  }

  async getNamed(name: string): Promise<Buffer | null> {
    if (!isBlobName(name)) return null;
    const bytes = this.named.get(name);
    return bytes ? Buffer.from(bytes) : null;
  }

  async close(): Promise<void> {
    this.blobs.clear();
    this.named.clear();
  }
}
