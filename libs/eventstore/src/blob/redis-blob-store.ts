import type Redis from 'ioredis';
import type { BlobStore, ExpiredBlobs } from '../blob-port';
import { assertBlobName, assertBlobSpace, isBlobName, isDigest, sha256Hex } from './digest';

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

const EXPIRE_BATCH = 200;

/**
 * One batch of the oldest names of a space stored before ARGV[1] (ms): each replaced by the note and
 * taken out of the times, in one script, so a name stored again meanwhile (a newer time) is not among
 * them. Names written before this version are in no sorted set and are never expired here.
 */
const EXPIRE_NAMED = `
local names = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[4]))
local blobs, freed = 0, 0
for _, name in ipairs(names) do
  local key = ARGV[3] .. name
  local size = redis.call('STRLEN', key)
  if size > 0 then
    redis.call('SET', key, ARGV[2])
    blobs = blobs + 1
    freed = freed + size - #ARGV[2]
  end
  redis.call('ZREM', KEYS[1], name)
end
return {#names, blobs, freed}
`;

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
    // One SET replaces the value atomically; `name:` keeps names apart from digests (hex only). Redis
    // keeps no time of a write, so the space's sorted set records it for expireNamed.
    await this.redis
      .multi()
      .set(`${this.prefix}name:${name}`, bytes)
      .zadd(this.timesOf(name.split('/')[0] as string), Date.now(), name)
      .exec();
  }

  async getNamed(name: string): Promise<Buffer | null> {
    if (!isBlobName(name)) return null;
    return this.redis.getBuffer(`${this.prefix}name:${name}`);
  }

  async expireNamed(space: string, before: Date, note: Buffer): Promise<ExpiredBlobs> {
    assertBlobSpace(space);
    const expired = { blobs: 0, bytes: 0 };
    for (;;) {
      const [names, blobs, bytes] = (await this.redis.eval(
        EXPIRE_NAMED,
        1,
        this.timesOf(space),
        String(before.getTime()),
        note,
        `${this.prefix}name:`,
        String(EXPIRE_BATCH),
      )) as [number, number, number];
      expired.blobs += blobs;
      expired.bytes += bytes;
      if (names < EXPIRE_BATCH) return expired;
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }

  /** When each name of a space was last stored: `times:` keeps it apart from names and digests. */
  private timesOf(space: string): string {
    return `${this.prefix}times:${space}`;
  }
}
