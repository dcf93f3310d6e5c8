import { PostgresEventStore, WrongExpectedRevisionError } from '../../libs/eventstore/src';
import { Pool } from 'pg';
import { withConnection } from '../../libs/eventstore/src/postgres/pooled';
import { advisoryLockKey } from '../../libs/eventstore/src/postgres/schema';
import { eventStoreContract, newEvent } from './eventstore.contract';
import { describePostgres } from './support/postgres';
import { streamRetentionContract } from './stream-retention.contract';

describePostgres('postgres event store', (db) => {
  eventStoreContract('postgres', async () => {
    const store = await db.openStore();
    return { store, cleanup: () => db.dropSchema(store.schema) };
  });

  // RAILYARD_POSTGRES_READ_AHEAD=off (D335): every read its own query, the same answers.
  eventStoreContract('postgres without read-ahead', async () => {
    const store = await db.openStore({ readAhead: false });
    return { store, cleanup: () => db.dropSchema(store.schema) };
  });

  streamRetentionContract('postgres', async (clock) => {
    const store = await db.openStore({ now: clock.now });
    return { store, cleanup: () => db.dropSchema(store.schema) };
  });

  describe('appends', () => {
    let store: PostgresEventStore;

    beforeEach(async () => {
      store = await db.openStore({ now: () => new Date('2031-02-03T04:05:06.789Z') });
    });

    afterEach(async () => {
      await store.close();
      await db.dropSchema(store.schema);
    });

    it('when appends to several streams arrive in one turn and one of them is refused, then the others are written and each gets its own answer', async () => {
      const [a, b, conflict, c] = await Promise.allSettled([
        store.append('s-a', [newEvent('A'), newEvent('A')], 'no_stream'),
        store.append('s-b', [newEvent('B')], 'no_stream'),
        store.append('s-a', [newEvent('A')], 'no_stream'),
        store.append('s-c', [newEvent('C')], 'any'),
      ]);

      expect(a).toEqual({ status: 'fulfilled', value: { nextRevision: 1, position: 2n } });
      expect(b).toEqual({ status: 'fulfilled', value: { nextRevision: 0, position: 3n } });
      expect(conflict.status === 'rejected' && conflict.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(c).toEqual({ status: 'fulfilled', value: { nextRevision: 0, position: 4n } });
      expect(await store.headPosition()).toBe(4n);
    });

    it('when one turn repeats an append it also makes, then the repeat gets the original answer and nothing is written twice', async () => {
      const events = [newEvent('A')];
      const [first, again] = await Promise.all([store.append('s', events, 'no_stream'), store.append('s', events, 'no_stream')]);

      expect(again).toEqual(first);
      expect(await store.readStream('s')).toHaveLength(1);
    });

    it('when appends are spread over many turns and streams, then global positions run 1, 2, 3, … without a gap', async () => {
      const results = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, i % 7));
          return store.append(`spread-${i % 5}-${i}`, [newEvent('S'), newEvent('S')], 'no_stream');
        }),
      );

      const all = await store.readAll(null, 100);
      expect(all.map((e) => e.position)).toEqual(Array.from({ length: 60 }, (_, i) => BigInt(i + 1)));
      expect(results.map((r) => r.position).sort((x, y) => (x < y ? -1 : 1))).toEqual(
        all.filter((_, i) => i % 2 === 1).map((e) => e.position),
      );
    });

    it('when a clock is injected, then recordedAt comes from it', async () => {
      await store.append('clock', [newEvent('A')], 'no_stream');

      expect((await store.readStream('clock'))[0]?.recordedAt).toBe('2031-02-03T04:05:06.789Z');
    });

    it('when the store is closed right after an append was made, then that append is committed rather than dropped', async () => {
      const appended = store.append('late', [newEvent('A', { n: 1 })], 'no_stream');
      await store.close();

      await expect(appended).resolves.toEqual({ nextRevision: 0, position: 1n });
      const reopened = await PostgresEventStore.open({ url: await db.url(), schema: store.schema });
      expect((await reopened.readStream('late')).map((e) => e.data)).toEqual([{ n: 1 }]);
      await reopened.close();
    });

    it('when another session holds the append lock, then an append waits for it and commits only after it is released', async () => {
      const holder = await db.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [advisoryLockKey(store.schema, 'append').toString()]);
        let settled = false;
        const appended = store.append('held', [newEvent('A')], 'no_stream').finally(() => {
          settled = true;
        });
        await db.waitForSession("wait_event_type = 'Lock' AND wait_event = 'advisory'");

        expect(settled).toBe(false);
        expect(await db.sql(`SELECT count(*)::int AS n FROM "${store.schema}".events`)).toEqual([{ n: 0 }]);
        await holder.query('SELECT pg_advisory_unlock_all()');
        await expect(appended).resolves.toEqual({ nextRevision: 0, position: 1n });
      } finally {
        await holder.end();
      }
    });

    describe('when two processes decide appends to one stream before either inserts', () => {
      let other: PostgresEventStore;

      beforeEach(async () => {
        other = await PostgresEventStore.open({ url: await db.url(), schema: store.schema });
        await store.append('hot', [newEvent('Created')], 'no_stream');
      });

      afterEach(() => other.close());

      /** Both appends decided and queued on the append lock, which the test holds, then released. */
      const raceUnderHeldLock = async (expected: 0 | 'any'): Promise<PromiseSettledResult<unknown>[]> => {
        const holder = await db.connect();
        try {
          await holder.query('SELECT pg_advisory_lock($1)', [advisoryLockKey(store.schema, 'append').toString()]);
          const racing = Promise.allSettled([
            store.append('hot', [newEvent('Mine')], expected),
            other.append('hot', [newEvent('Theirs')], expected),
          ]);
          await db.waitForSession("wait_event_type = 'Lock' AND wait_event = 'advisory' AND query ILIKE '%append_events%'", 2);
          await holder.query('SELECT pg_advisory_unlock_all()');
          return await racing;
        } finally {
          await holder.end();
        }
      };

      it('then with expected any the second finds its decision stale, decides again under the lock and lands after the first', async () => {
        const outcomes = await raceUnderHeldLock('any');

        expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
        const read = await store.readStream('hot');
        expect(read.map((e) => [e.revision, e.position])).toEqual([
          [0, 1n],
          [1, 2n],
          [2, 3n],
        ]);
        expect(new Set(read.slice(1).map((e) => e.type))).toEqual(new Set(['Mine', 'Theirs']));
      });

      it('then with the same expected revision exactly one lands and the other gets WrongExpectedRevisionError', async () => {
        const outcomes = await raceUnderHeldLock(0);

        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const refused = outcomes.find((o) => o.status === 'rejected');
        expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(WrongExpectedRevisionError);
        expect(refused?.status === 'rejected' && refused.reason).toMatchObject({ expected: 0, actual: 1 });
        expect(await store.readStream('hot')).toHaveLength(2);
      });
    });

    it('when the session of an append in progress is ended by the server, then that append fails, the process lives on and the next append works', async () => {
      const holder = await db.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [advisoryLockKey(store.schema, 'append').toString()]);
        const appended = store.append('ended', [newEvent('Lost')], 'no_stream');
        const [waiting] = await db.waitForSession("wait_event_type = 'Lock' AND wait_event = 'advisory'");
        await holder.query('SELECT pg_terminate_backend($1)', [waiting]);

        await expect(appended).rejects.toThrow(/terminat/);
        await holder.query('SELECT pg_advisory_unlock_all()');
        await new Promise((resolve) => setTimeout(resolve, 100));
        await expect(store.append('ended', [newEvent('Kept')], 'no_stream')).resolves.toEqual({ nextRevision: 0, position: 1n });
      } finally {
        await holder.end();
      }
    });

    it('when the schema name is not a plain identifier, then opening is refused before any SQL runs', async () => {
      await expect(PostgresEventStore.open({ url: await db.url(), schema: 'x"; DROP TABLE y; --' })).rejects.toThrow(RangeError);
      await expect(PostgresEventStore.open({ url: await db.url(), schema: 'Upper' })).rejects.toThrow(RangeError);
    });

    it('when two stores use different schemas of one database, then neither sees the other’s events', async () => {
      const other = await db.openStore();
      try {
        await store.append('same-name', [newEvent('Here')], 'no_stream');
        await other.append('same-name', [newEvent('There'), newEvent('There')], 'no_stream');

        expect((await store.readStream('same-name')).map((e) => e.type)).toEqual(['Here']);
        expect(await other.headPosition()).toBe(2n);
      } finally {
        await other.close();
        await db.dropSchema(other.schema);
      }
    });
  });

  describe('pooled connections', () => {
    it('when a checked-out connection is ended by the server between two queries, then the process lives on and the pool replaces it', async () => {
      const pool = new Pool({ connectionString: await db.url(), max: 1 });
      try {
        const first = await withConnection(pool, async (client) => {
          const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          const pid = rows[0]?.pid as number;
          await db.sql('SELECT pg_terminate_backend($1)', [pid]);
          // No query is running now: pg reports the loss as an 'error' event on the connection.
          await db.waitForSessionGone(pid);
          await new Promise((resolve) => setTimeout(resolve, 100));
          return pid;
        });

        const second = await withConnection(
          pool,
          async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid,
        );
        expect(second).not.toBe(first);
      } finally {
        await pool.end();
      }
    });
  });
});
