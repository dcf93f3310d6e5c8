import type Redis from 'ioredis';
import type { BlobStore } from '../blob-port';
import { assertBlobName, isBlobName, isDigest, sha256Hex } from './digest';

/**
 * ioredis's client class, required when a store opens its own connection, not imported: every process
 * that imports the event store or the read models would otherwise load it (about 45 modules) though
 * only a Redis-backed one connects (docs/benchmarks.md, "Test suite time").
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const redisClient = (): typeof Redis => (require('ioredis') as typeof import('ioredis')).Redis;

export interface RedisBlobStoreOptions {
  /** Used when no `client` is given; the store then owns the connection and quits it on close. */
  url?: string;
  /** A connection owned by the caller; close() leaves it open. */
  client?: Redis;
  /** Prepended to the digest to form the key; a named blob's key is the prefix, `name:` and the name. */
  prefix?: string;
}

export const DEFAULT_BLOB_PREFIX = 'railyard:blob:';

/** Blobs as plain Redis strings holding the bytes unchanged, for processes that share only Redis. */
export class RedisBlobStore implements BlobStore {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(options: RedisBlobStoreOptions) {
    if (options.client) {
      this.redis = options.client;
      this.ownsClient = false;
    } else if (options.url) {
      this.redis = new (redisClient())(options.url);
      this.ownsClient = true;
    } else {
      throw new Error('RedisBlobStore needs a url or a client');
    }
    this.prefix = options.prefix ?? DEFAULT_BLOB_PREFIX;
  }

  async put(bytes: Buffer): Promise<string> {
    const digest = sha256Hex(bytes);
    // NX: the key is the content's hash, so an existing value is already the same bytes.
    await this.redis.set(this.prefix + digest, bytes, 'NX');
    return digest;
  }

  async get(digest: string): Promise<Buffer | null> {
    if (!isDigest(digest)) return null;
    return this.redis.getBuffer(this.prefix + digest);
  }

  async putNamed(name: string, bytes: Buffer): Promise<void> {
    assertBlobName(name);
    // One SET replaces the value atomically; `name:` keeps names apart from digests (hex only).
    await this.redis.set(`${this.prefix}name:${name}`, bytes);
  }

  async getNamed(name: string): Promise<Buffer | null> {
    if (!isBlobName(name)) return null;
    return this.redis.getBuffer(`${this.prefix}name:${name}`);
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
