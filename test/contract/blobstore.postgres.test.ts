import { PostgresBlobStore, PostgresEventStore, sha256Hex } from '../../libs/eventstore/src';
import { MIGRATIONS } from '../../libs/eventstore/src/postgres/schema';
import { blobStoreContract } from './blobstore.contract';
import { describePostgres } from './support/postgres';

describePostgres('postgres blob store', (db) => {
  blobStoreContract('postgres', async () => {
    const schema = db.newSchema();
    const store = await PostgresBlobStore.open({ url: await db.url(), schema });
    return { store, cleanup: () => db.dropSchema(schema) };
  });

  describe('beside the event store', () => {
    let schema: string;

    beforeEach(() => {
      schema = db.newSchema();
    });

    afterEach(() => db.dropSchema(schema));

    it('when the blob store opens a schema first, then it creates the tables by the versioned migrations and the event store then finds nothing to do', async () => {
      const blobs = await PostgresBlobStore.open({ url: await db.url(), schema });
      const events = await PostgresEventStore.open({ url: await db.url(), schema });
      await blobs.close();
      await events.close();

      const applied = await db.sql<{ version: number }>(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
      expect(applied.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    });

    it('when a blob is put, then the bytes sit unchanged in the schema’s blobs table under their digest', async () => {
      const store = await PostgresBlobStore.open({ url: await db.url(), schema });
      const bytes = Buffer.from([0, 1, 2, 255]);
      await store.put(bytes);
      await store.close();

      expect(await db.sql(`SELECT digest, bytes FROM "${schema}".blobs`)).toEqual([{ digest: sha256Hex(bytes), bytes }]);
    });

    it('when two stores on separate connections share the schema, then one reads what the other wrote', async () => {
      const writer = await PostgresBlobStore.open({ url: await db.url(), schema });
      const reader = await PostgresBlobStore.open({ url: await db.url(), schema });
      try {
        const digest = await writer.put(Buffer.from('impacted'));
        await writer.putNamed('ci-log/r/c.log', Buffer.from('log'));

        expect((await reader.get(digest))?.toString()).toBe('impacted');
        expect((await reader.getNamed('ci-log/r/c.log'))?.toString()).toBe('log');
      } finally {
        await writer.close();
        await reader.close();
      }
    });

    it('when the schema name is not a plain identifier, then opening is refused before any SQL runs', async () => {
      await expect(PostgresBlobStore.open({ url: await db.url(), schema: 'x"; DROP TABLE y; --' })).rejects.toThrow(RangeError);
    });
  });
});
