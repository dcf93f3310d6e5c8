import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Where tests and benchmarks find PostgreSQL unless RAILYARD_TEST_POSTGRES_URL says otherwise. */
export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

const PROBE = `
const { Client } = require(process.argv[1]);
const client = new Client({ connectionString: process.argv[2], connectionTimeoutMillis: 3000 });
client.connect().then(() => client.query('SELECT 1')).then(
  () => client.end().then(() => process.exit(0)),
  (err) => { process.stderr.write(String(err && err.message)); process.exit(1); },
);`;

/**
 * Null when a PostgreSQL server answers at `url`, otherwise why not. Synchronous (a child process
 * asks), because a jest file decides while it loads which tests it defines.
 */
export function postgresUnreachableReason(url: string): string | null {
  try {
    execFileSync(process.execPath, ['-e', PROBE, require.resolve('pg'), url], { timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] });
    return null;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return stderr || (err instanceof Error ? err.message : String(err));
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, ending whatever sessions are still connected to it. */
  drop(): Promise<void>;
}

async function asAdmin(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A database of its own on the server at `adminUrl`, so a test never shares tables with another. */
export async function createTestDatabase(adminUrl: string, label: string): Promise<TestDatabase> {
  const tag = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  const name = `railyard_${tag}_${randomBytes(5).toString('hex')}`;
  await asAdmin(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => asAdmin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
