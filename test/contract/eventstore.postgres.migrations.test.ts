import { Pool } from 'pg';
import { PostgresEventStore } from '../../libs/eventstore/src';
import { migrate } from '../../libs/eventstore/src/postgres/migrate';
import { advisoryLockKey, MIGRATIONS } from '../../libs/eventstore/src/postgres/schema';
import { newEvent } from './eventstore.contract';
import { describePostgres } from './support/postgres';

describePostgres('postgres event store migrations', (db) => {
  let schema: string;

  beforeEach(() => {
    schema = db.newSchema();
  });

  afterEach(() => db.dropSchema(schema));

  const open = async () => PostgresEventStore.open({ url: await db.url(), schema });
  const recorded = () =>
    db.sql<{ version: number; name: string }>(`SELECT version, name FROM "${schema}".schema_migrations ORDER BY version`);

  it('when a store opens on an empty schema, then it creates the events table as documented and records version 1', async () => {
    const store = await open();
    await store.close();

    const columns = await db.sql<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' ORDER BY ordinal_position`,
      [schema],
    );
    expect(columns.map((c) => [c.column_name, c.data_type])).toEqual([
      ['position', 'bigint'],
      ['stream_id', 'text'],
      ['revision', 'bigint'],
      ['event_id', 'text'],
      ['type', 'text'],
      ['data', 'json'],
      ['metadata', 'json'],
      ['recorded_at', 'timestamp with time zone'],
    ]);
    expect(await recorded()).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  });

  it('when several stores open the same empty schema at once, each on its own connection, then it is migrated exactly once and all of them work', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => open()));
    await Promise.all(stores.map((s, i) => s.append(`opened-${i}`, [newEvent('Opened')], 'no_stream')));
    await Promise.all(stores.map((s) => s.close()));

    expect(await recorded()).toHaveLength(MIGRATIONS.length);
    expect(await db.sql(`SELECT count(*)::int AS n FROM "${schema}".events`)).toEqual([{ n: 4 }]);
  });

  it('when another process is migrating, then opening waits for it instead of migrating alongside', async () => {
    const holder = await db.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [advisoryLockKey(schema, 'migrate').toString()]);
      let opened = false;
      const opening = open().then((store) => {
        opened = true;
        return store;
      });
      await db.waitForSession("wait_event_type = 'Lock' AND wait_event = 'advisory'");

      expect(opened).toBe(false);
      await holder.query('SELECT pg_advisory_unlock_all()');
      await (await opening).close();
      expect(await recorded()).toHaveLength(MIGRATIONS.length);
    } finally {
      await holder.end();
    }
  });

  it('when a schema made by version 2 is opened by this build, then its notifications name the last position appended', async () => {
    const pool = new Pool({ connectionString: await db.url() });
    try {
      await migrate(
        pool,
        schema,
        MIGRATIONS.filter((m) => m.version <= 2),
      );
    } finally {
      await pool.end();
    }
    const store = await open();
    try {
      await store.append('before', [newEvent('A')], 'no_stream');
      const heard = await db.listenOnce(`railyard_events_${schema}`);
      const { position } = await store.append('upgraded', [newEvent('B'), newEvent('C')], 'no_stream');

      expect(await heard.payload).toBe(String(position));
      expect(position).toBe(3n);
      expect((await recorded()).map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await store.close();
    }
  });

  it('when a store is reopened, then nothing is migrated again and its events are still there', async () => {
    const first = await open();
    await first.append('kept', [newEvent('A')], 'no_stream');
    await first.close();

    const pool = new Pool({ connectionString: await db.url() });
    try {
      await expect(migrate(pool, schema)).resolves.toEqual([]);
    } finally {
      await pool.end();
    }
    const second = await open();
    expect(await second.readStream('kept')).toHaveLength(1);
    await second.close();
  });

  it('when a build brings a new migration, then only that one is applied, on top of the existing data', async () => {
    await (await open()).close();
    const next = {
      version: MIGRATIONS.length + 1,
      name: 'test: an index',
      sql: (q: string) => `CREATE INDEX events_type ON ${q}.events (type)`,
    };

    const pool = new Pool({ connectionString: await db.url() });
    try {
      await expect(migrate(pool, schema, [...MIGRATIONS, next])).resolves.toEqual([next.version]);
    } finally {
      await pool.end();
    }
    expect((await recorded()).map((r) => r.version)).toEqual([...MIGRATIONS.map((m) => m.version), next.version]);
    expect(await db.sql(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname = 'events_type'`, [schema])).toHaveLength(1);
  });

  it('when a migration fails, then none of it stays and the recorded version does not move', async () => {
    await (await open()).close();
    const broken = {
      version: MIGRATIONS.length + 1,
      name: 'test: broken',
      sql: (q: string) => `CREATE TABLE ${q}.half (x int); SELECT no_such_function()`,
    };

    const pool = new Pool({ connectionString: await db.url() });
    try {
      await expect(migrate(pool, schema, [...MIGRATIONS, broken])).rejects.toThrow(/no_such_function/);
    } finally {
      await pool.end();
    }
    expect(await recorded()).toHaveLength(MIGRATIONS.length);
    expect(await db.sql(`SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'half'`, [schema])).toEqual([]);
  });

  it('when the schema was migrated by a newer build, then an older one refuses to start and says why', async () => {
    await (await open()).close();
    await db.sql(`INSERT INTO "${schema}".schema_migrations (version, name) VALUES (999, 'from the future')`);

    await expect(open()).rejects.toThrow(/version 999, newer than this build understands/);
  });
});
