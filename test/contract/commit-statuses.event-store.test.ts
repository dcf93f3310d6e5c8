import { join } from 'node:path';
import { KurrentEventStore, MemoryEventStore, SqliteEventStore, type EventStore } from '@railyard/eventstore';
import { EventStoreCommitStatusStore, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { commitStatusStoreContract, type StatusBed, type StatusStoresUnderTest } from './commit-statuses.contract';
import { describePostgres } from './support/postgres';
import { writeStatusesFromChild } from './support/status-writer';

// Child processes start through tsx on a shared 2-core machine; this is a hang guard, not a measurement.
jest.setTimeout(120_000);

/** Each open() is an instance over its own connection (`connect`), as another process would have. */
const eventStoreStatuses = (
  bed: StatusBed,
  connect: () => Promise<EventStore>,
  extra: Pick<StatusStoresUnderTest, 'writeFromChild' | 'cleanup'>,
): StatusStoresUnderTest => {
  const connections: EventStore[] = [];
  return {
    open: async (clock) => {
      const eventStore = await connect();
      connections.push(eventStore);
      return localHostStatuses({ eventStore, gitRoot: bed.gitRoot, ...(clock ? { clock } : {}) });
    },
    listening: (store: CommitStatusStore) => (store as EventStoreCommitStatusStore).whenListening(),
    ...(extra.writeFromChild ? { writeFromChild: extra.writeFromChild } : {}),
    cleanup: async () => {
      await Promise.all(connections.splice(0).map((c) => c.close()));
      await extra.cleanup();
    },
  };
};

commitStatusStoreContract('memory event store', async (bed) => {
  const shared = new MemoryEventStore();
  return eventStoreStatuses(bed, async () => shared, { cleanup: () => shared.close() });
});

commitStatusStoreContract(
  'SQLite event store',
  async (bed) => {
    const file = join(bed.gitRoot, 'events.sqlite');
    return eventStoreStatuses(bed, async () => new SqliteEventStore({ file }), {
      writeFromChild: (repo, sha, contexts) => writeStatusesFromChild({ store: { kind: 'sqlite', file }, repo, sha, contexts }),
      cleanup: async () => undefined,
    });
  },
  { crossProcess: true },
);

describePostgres('postgres statuses', (db) => {
  commitStatusStoreContract(
    'PostgreSQL event store',
    async (bed) => {
      const schema = db.newSchema();
      const url = await db.url();
      return eventStoreStatuses(bed, () => db.openStore({ schema }), {
        writeFromChild: (repo, sha, contexts) => writeStatusesFromChild({ store: { kind: 'postgres', url, schema }, repo, sha, contexts }),
        cleanup: () => db.dropSchema(schema),
      });
    },
    { crossProcess: true },
  );
});

// As the event store's own KurrentDB contract: only where a server is reachable (no Docker here).
const kurrentUrl = process.env.RAILYARD_KURRENTDB_URL;
if (kurrentUrl) {
  commitStatusStoreContract(
    'KurrentDB event store',
    async (bed) =>
      eventStoreStatuses(bed, async () => new KurrentEventStore({ url: kurrentUrl }), {
        writeFromChild: (repo, sha, contexts) =>
          writeStatusesFromChild({ store: { kind: 'kurrent', url: kurrentUrl }, repo, sha, contexts }),
        cleanup: async () => undefined,
      }),
    { crossProcess: true },
  );
} else {
  process.stderr.write('\nKurrentDB CommitStatusStore contract SKIPPED: set RAILYARD_KURRENTDB_URL to run it\n');
  describe.skip('CommitStatusStore contract: KurrentDB event store (SKIPPED: RAILYARD_KURRENTDB_URL is not set)', () => {
    it('when RAILYARD_KURRENTDB_URL is set, then the whole CommitStatusStore contract runs against KurrentDB', () => undefined);
  });
}
