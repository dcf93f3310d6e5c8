import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { PostgresEventStore, type PostgresEventStoreOptions } from '../../../libs/eventstore/src';
import { createTestDatabase, DEFAULT_TEST_POSTGRES_URL, postgresUnreachableReason, type TestDatabase } from '../../../libs/testkit/src';

export const adminUrl = process.env.RAILYARD_TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;

/** The URL with its password hidden, for messages. */
const shown = (url: string): string => {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
};

/**
 * Defines a PostgreSQL suite when a server answers at RAILYARD_TEST_POSTGRES_URL (default: local,
 * user postgres). Otherwise it says plainly that it skipped, except under CI=true, where an
 * unreachable server is a failure: CI starts PostgreSQL itself (.ci/run).
 */
export function describePostgres(name: string, define: (db: PostgresTestDatabase) => void): void {
  const unreachable = postgresUnreachableReason(adminUrl);
  if (unreachable === null) {
    describe(name, () => {
      const db = new PostgresTestDatabase(name);
      afterAll(() => db.drop());
      define(db);
    });
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it('when CI runs the suite, then PostgreSQL is reachable', () => {
        throw new Error(`PostgreSQL at ${shown(adminUrl)} is unreachable under CI=true: ${unreachable}`);
      });
    });
  } else {
    // Straight to stderr: jest drops console output of a suite whose tests are all skipped.
    process.stderr.write(
      `\n${name} SKIPPED: no PostgreSQL at ${shown(adminUrl)} (${unreachable}); set RAILYARD_TEST_POSTGRES_URL to run it\n`,
    );
    describe.skip(`${name} (SKIPPED: PostgreSQL unreachable)`, () => {
      it('when PostgreSQL is reachable, then this suite runs against it', () => undefined);
    });
  }
}

/**
 * A database of the suite's own, made on first use and dropped after the suite; each store a test
 * opens lives in a schema of its own inside it, dropped by the test's cleanup.
 */
export class PostgresTestDatabase {
  private created: Promise<TestDatabase> | null = null;
  private schemaCount = 0;

  constructor(private readonly label: string) {}

  async url(): Promise<string> {
    this.created ??= createTestDatabase(adminUrl, this.label);
    return (await this.created).url;
  }

  /** A schema name no other test of the suite uses. */
  newSchema(): string {
    this.schemaCount += 1;
    return `t${this.schemaCount}_${randomBytes(3).toString('hex')}`;
  }

  async openStore(options: Partial<PostgresEventStoreOptions> = {}): Promise<PostgresEventStore> {
    return PostgresEventStore.open({ url: await this.url(), schema: this.newSchema(), ...options });
  }

  /** Runs SQL on a connection of its own and closes it. */
  async sql<R extends object = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
    const client = await this.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  /** A connection of the test's own (to hold locks, inspect sessions); the caller ends it. */
  async connect(): Promise<Client> {
    const client = new Client({ connectionString: await this.url(), application_name: 'railyard-test' });
    await client.connect();
    return client;
  }

  /** Listens on `channel` on a connection of its own; `payload` is the first notification's, after which the connection ends. */
  async listenOnce(channel: string): Promise<{ payload: Promise<string | undefined> }> {
    const client = await this.connect();
    const payload = new Promise<string | undefined>((resolve) => {
      client.once('notification', (message) => {
        resolve(message.payload);
        void client.end();
      });
    });
    await client.query(`LISTEN "${channel}"`);
    return { payload };
  }

  /** Waits until `atLeast` sessions on the database match `where` (a condition on pg_stat_activity); returns their pids. */
  async waitForSession(where: string, atLeast = 1): Promise<number[]> {
    for (let i = 0; i < 1_000; i++) {
      const rows = await this.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND ${where}`);
      if (rows.length >= atLeast) return rows.map((r) => r.pid);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no session matched ${where}`);
  }

  /** Waits until no other session on the database matches `where` (a condition on pg_stat_activity). */
  async waitForNoSession(where: string): Promise<void> {
    for (let i = 0; i < 1_000; i++) {
      const rows = await this.sql(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${where}`,
      );
      if (rows.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`sessions still matched ${where}`);
  }

  async waitForSessionGone(pid: number): Promise<void> {
    for (let i = 0; i < 1_000; i++) {
      if ((await this.sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`session ${pid} did not end`);
  }

  async dropSchema(schema: string): Promise<void> {
    await this.sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }

  async drop(): Promise<void> {
    if (this.created) await (await this.created).drop();
  }
}
