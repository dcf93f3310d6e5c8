import type { Pool } from 'pg';
import type { BlobStore } from '../blob-port';
import { assertBlobName, isBlobName, isDigest, sha256Hex } from '../blob/digest';
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

  async close(): Promise<void> {
    await this.pool.end();
  }
}
