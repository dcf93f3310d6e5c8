import type { Pool, PoolConfig } from 'pg';
import { pg } from './pg';
import { withConnection } from './pooled';
import { advisoryLockKey, MIGRATIONS, quoteSchema, type Migration } from './schema';

/**
 * Brings the schema to the latest migration's version in one transaction. The transaction first takes the schema's
 * migration lock, so when several processes start at once one migrates and the others wait, then
 * find nothing left to do. DDL is transactional in PostgreSQL: a failed migration leaves nothing.
 * Returns the versions this call applied. `migrations` is a parameter so tests can add one.
 */
export async function migrate(pool: Pool, schema: string, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const q = quoteSchema(schema);
  const latest = Math.max(0, ...migrations.map((m) => m.version));
  return withConnection(pool, async (client) => {
    await client.query('BEGIN');
    try {
      // Waiting for another process's migration is normal at start and may outlast the appends' lock_timeout.
      await client.query("SET LOCAL lock_timeout = '5min'");
      await client.query('SELECT pg_advisory_xact_lock($1)', [advisoryLockKey(schema, 'migrate').toString()]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${q}.schema_migrations (
           version    integer     PRIMARY KEY,
           name       text        NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${q}.schema_migrations`);
      const current = rows[0]?.version ?? 0;
      if (current > latest) {
        throw new Error(`event store schema ${schema} is at version ${current}, newer than this build understands (${latest})`);
      }
      const pending = migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
      for (const migration of pending) {
        await client.query(migration.sql(q));
        await client.query(`INSERT INTO ${q}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      }
      await client.query('COMMIT');
      return pending.map((m) => m.version);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}

/**
 * A pool for one schema, brought to the latest migration before it is handed out (the event store's
 * and the blob store's alike); ended again when migrating fails.
 */
export async function openMigratedPool(config: PoolConfig, schema: string): Promise<Pool> {
  const pool = new (pg().Pool)(config);
  // A pooled connection that dies while idle is dropped by the pool and replaced on next use.
  pool.on('error', () => undefined);
  try {
    await migrate(pool, schema);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return pool;
}
