import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PostgresEventStore } from '../../libs/eventstore/src';
import { createTestDatabase, makeTempDir, removeTempDir } from '../../libs/testkit/src';
import { newEvent } from './eventstore.contract';
import { adminUrl, describePostgres } from './support/postgres';

jest.setTimeout(60_000);

/** The backup and restore of docs/operations.md, as written there, with the client tools on PATH. */
describePostgres('postgres event store backup', (db) => {
  it('when a schema is dumped with pg_dump and restored with pg_restore into an empty database, then the restored store holds every event and takes appends', async () => {
    const store = await db.openStore();
    const events = [newEvent('Before', { n: 1 }), newEvent('Before', { n: 2 })];
    await store.append('kept', events, 'no_stream');
    const dir = await makeTempDir('railyard-pg-backup-');
    const target = await createTestDatabase(adminUrl, 'restore');
    try {
      const dump = join(dir, 'railyard.dump');
      execFileSync('pg_dump', ['--format=custom', `--schema=${store.schema}`, `--file=${dump}`, await db.url()]);
      await store.append('kept', [newEvent('AfterDump')], 1);
      execFileSync('pg_restore', [`--dbname=${target.url}`, '--no-owner', '--exit-on-error', dump]);

      const restored = await PostgresEventStore.open({ url: target.url, schema: store.schema });
      try {
        expect((await restored.readStream('kept')).map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
        await expect(restored.append('kept', [newEvent('AfterRestore')], 1)).resolves.toEqual({ nextRevision: 2, position: 3n });
      } finally {
        await restored.close();
      }
    } finally {
      await store.close();
      await db.dropSchema(store.schema);
      await target.drop();
      await removeTempDir(dir);
    }
  });
});
