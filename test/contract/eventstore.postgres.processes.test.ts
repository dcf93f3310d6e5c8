import type { PostgresEventStore, RecordedEvent, Subscription } from '../../libs/eventstore/src';
import { Collector, newEvent } from './eventstore.contract';
import { describePostgres } from './support/postgres';
import { expectContiguousRevisions, readEverything, writerPool, type Ack, type Writer } from './support/store-writer';

// Child processes start through tsx on a shared 2-core machine; this is a hang guard, not a measurement.
jest.setTimeout(120_000);

const ids = (events: readonly { eventId: string }[]): string[] => events.map((e) => e.eventId);
const ackedIds = (acks: readonly Ack[]): string[] => acks.flatMap((a) => a.eventIds);

/** Every append (stream and number) that is stored at all is stored whole. */
function expectWholeAppends(events: readonly RecordedEvent[], eventsPerAppend: number): void {
  const sizes = new Map<string, number>();
  for (const e of events) {
    const { tag, appendNo } = e.data as { tag: string; appendNo: number };
    const key = `${tag}#${e.streamId}#${appendNo}`;
    sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  expect([...sizes.values()].every((n) => n === eventsPerAppend)).toBe(true);
}

function expectAcksMatch(events: readonly RecordedEvent[], acks: readonly Ack[]): void {
  const byId = new Map(events.map((e) => [e.eventId, e]));
  for (const ack of acks) {
    for (const id of ack.eventIds) expect(byId.has(id)).toBe(true);
    const last = byId.get(ack.eventIds[ack.eventIds.length - 1] as string);
    expect(last).toMatchObject({ streamId: ack.stream, revision: ack.nextRevision, position: BigInt(ack.position) });
  }
}

describePostgres('postgres event store across processes', (db) => {
  const writers = writerPool();
  let store: PostgresEventStore;
  let subscription: Subscription | undefined;
  const reader = new Collector();

  beforeEach(async () => {
    store = await db.openStore();
    reader.batches.length = 0;
    // The reader is subscribed from the very start, before any writer exists.
    subscription = store.subscribe({ fromPosition: null, onEvents: reader.onEvents });
  });

  afterEach(async () => {
    writers.killAll();
    await subscription?.close();
    await store.close();
    await db.dropSchema(store.schema);
  });

  const start = async (tag: string, streams: string[], appends: number | null, eventsPerAppend = 3): Promise<Writer> => {
    const w = writers.start({
      store: { kind: 'postgres', url: await db.url(), schema: store.schema },
      tag,
      streams,
      eventsPerAppend,
      appends,
    });
    await w.ready();
    return w;
  };

  /** What the subscribed reader was handed equals the whole log: each event once, in position order. */
  const expectReaderSawTheLog = async (): Promise<RecordedEvent[]> => {
    const all = await readEverything(store);
    await reader.untilSeen(ids(all));
    const seen = reader.events;
    expect(new Set(ids(seen)).size).toBe(seen.length);
    expect(ids(seen)).toEqual(ids(all));
    // Positions are handed out under the append lock: contiguous, so a gap would be a lost event.
    expect(seen.map((e) => e.position)).toEqual(all.map((_, i) => BigInt(i + 1)));
    return all;
  };

  it('when four processes append at once to shared and to their own streams, then a reader subscribed from 0 sees every event once, in position order', async () => {
    const shared = ['shared-1', 'shared-2'];
    const children = await Promise.all([
      start('left', shared, 40),
      start('right', shared, 40),
      start('solo-a', ['own-a'], 40),
      start('solo-b', ['own-b1', 'own-b2'], 40),
    ]);
    children.forEach((c) => c.go());
    await Promise.all(children.map((c) => c.finished()));

    const all = await expectReaderSawTheLog();
    const acks = children.flatMap((c) => c.acks);
    expect(acks).toHaveLength(160);
    expect(all).toHaveLength(480);
    expect(new Set(ids(all))).toEqual(new Set(ackedIds(acks)));
    expectAcksMatch(all, acks);
    expectContiguousRevisions(all);
    // Both writers of the shared streams really interleaved, so the revision checks were contended.
    const tagsOf = (stream: string) => new Set(all.filter((e) => e.streamId === stream).map((e) => (e.data as { tag: string }).tag));
    for (const stream of shared) expect(tagsOf(stream)).toEqual(new Set(['left', 'right']));
  });

  it('when a writer is killed with SIGKILL in the middle of a burst, then every acknowledged append is there whole and the other writers go on', async () => {
    const doomed = await start('doomed', ['burst-a', 'burst-b'], null, 5);
    const steady = await start('steady', ['burst-a', 'steady'], 60, 5);
    doomed.go();
    steady.go();
    await doomed.until(() => doomed.acks.length >= 30);
    process.kill(doomed.scriptPid, 'SIGKILL');
    await doomed.exited;
    await steady.finished();
    // The server finishes a statement whose client is gone, so the killed writer's last append may
    // commit after its process has ended (once seen in CI: five events more than the stream read
    // before the final append): the log is read once no append is running any more.
    await db.waitForNoSession("state = 'active' AND query ILIKE '%append_events%'");

    const all = await expectReaderSawTheLog();
    expectAcksMatch(all, [...doomed.acks, ...steady.acks]);
    expectWholeAppends(all, 5);
    expectContiguousRevisions(all);
    const head = await store.readStream('burst-a');
    await expect(store.append('burst-a', [newEvent('After')], head.length - 1)).resolves.toMatchObject({ nextRevision: head.length });
  });

  it('when a writer is killed while its append waits inside the insert, then that append stands whole or not at all and the store goes on', async () => {
    const doomed = await start('doomed', ['stuck'], 1, 4);
    const holder = await db.connect();
    try {
      // SHARE mode lets the writer read and take the append lock, and stops it at its INSERT.
      await holder.query(`BEGIN; LOCK TABLE "${store.schema}".events IN SHARE MODE`);
      doomed.go();
      await db.waitForSession("wait_event_type = 'Lock' AND wait_event = 'relation' AND query ILIKE '%append_events%'");
      process.kill(doomed.scriptPid, 'SIGKILL');
      await doomed.exited;
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }

    // The server finishes a statement whose client is gone: it may have committed, never acknowledged.
    expect(doomed.acks).toEqual([]);
    const appended = await store.append('after', [newEvent('After')], 'no_stream');
    const all = await expectReaderSawTheLog();
    expect([0, 4]).toContain(all.filter((e) => e.streamId === 'stuck').length);
    expectWholeAppends(
      all.filter((e) => e.streamId === 'stuck'),
      4,
    );
    expect(all[all.length - 1]).toMatchObject({ streamId: 'after', position: appended.position });
  });
});
