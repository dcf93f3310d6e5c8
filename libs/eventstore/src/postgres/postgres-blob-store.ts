import type { Pool } from 'pg';
import type { BlobStore, ExpiredBlobs } from '../blob-port';
import { assertBlobName, assertBlobSpace, isBlobName, isDigest, sha256Hex } from '../blob/digest';
import { openMigratedPool } from './migrate';
import { DEFAULT_POSTGRES_SCHEMA } from './postgres-event-store';
import { quoteSchema } from './schema';

export interface PostgresBlobStoreOptions {
  /** The event store's database (RAILYARD_POSTGRES_URL). */
  url: string;
  /** The event store's schema: the blob tables come with its migrations (schema.ts, version 2). */
  schema?: string;
  /** Connections; blob traffic is rare and large, so a small pool of its own. */
  poolSize?: number;
}

const EXPIRE_BATCH = 200;

/**
 * Blobs as bytea rows in the event store's PostgreSQL schema, for processes on separate machines
 * that share the database (docs/decisions.md, D185). Opening applies the schema's migrations, as
 * the event store does, so whichever of the two opens first creates the tables.
 */
export class PostgresBlobStore implements BlobStore {
  private constructor(
    private readonly pool: Pool,
    private readonly q: string,
  ) {}

  static async open(options: PostgresBlobStoreOptions): Promise<PostgresBlobStore> {
    const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
    const q = quoteSchema(schema);
    const pool = await openMigratedPool(
      { connectionString: options.url, keepAlive: true, application_name: 'railyard-blobs', max: options.poolSize ?? 2 },
      schema,
    );
    return new PostgresBlobStore(pool, q);
  }

  async put(bytes: Buffer): Promise<string> {
    const digest = sha256Hex(bytes);
    // The key is the content's hash: a row already there holds these bytes, so a second writer does nothing.
    await this.pool.query(`INSERT INTO ${this.q}.blobs (digest, bytes) VALUES ($1, $2) ON CONFLICT (digest) DO NOTHING`, [digest, bytes]);
    return digest;
  }

  async get(digest: string): Promise<Buffer | null> {
    if (!isDigest(digest)) return null;
    const { rows } = await this.pool.query<{ bytes: Buffer }>(`SELECT bytes FROM ${this.q}.blobs WHERE digest = $1`, [digest]);
    return rows[0]?.bytes ?? null;
  }

  async putNamed(name: string, bytes: Buffer): Promise<void> {
    assertBlobName(name);
    await this.pool.query(
      `INSERT INTO ${this.q}.named_blobs (name, bytes) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET bytes = EXCLUDED.bytes, stored_at = now()`,
      [name, bytes],
    );
  }

  async getNamed(name: string): Promise<Buffer | null> {
    if (!isBlobName(name)) return null;
    const { rows } = await this.pool.query<{ bytes: Buffer }>(`SELECT bytes FROM ${this.q}.named_blobs WHERE name = $1`, [name]);
    return rows[0]?.bytes ?? null;
  }

  async expireNamed(space: string, before: Date, note: Buffer): Promise<ExpiredBlobs> {
    assertBlobSpace(space);
    const expired = { blobs: 0, bytes: 0 };
    for (;;) {
      // stored_at is kept: a note is never replaced again, and `bytes <> note` skips it.
      const { rows } = await this.pool.query<{ blobs: number; bytes: string }>(
        `WITH old AS (
           SELECT name, octet_length(bytes) AS size FROM ${this.q}.named_blobs
            WHERE starts_with(name, $1) AND stored_at < $2 AND bytes <> $3 LIMIT $4 FOR UPDATE
         ), done AS (
           UPDATE ${this.q}.named_blobs n SET bytes = $3 FROM old WHERE n.name = old.name AND n.stored_at < $2
         RETURNING old.size)
         SELECT count(*)::int AS blobs, coalesce(sum(size - octet_length($3::bytea)), 0)::text AS bytes FROM done`,
        [`${space}/`, before, note, EXPIRE_BATCH],
      );
      const blobs = rows[0]?.blobs ?? 0;
      expired.blobs += blobs;
      expired.bytes += Number(rows[0]?.bytes ?? 0);
      if (blobs < EXPIRE_BATCH) return expired;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
