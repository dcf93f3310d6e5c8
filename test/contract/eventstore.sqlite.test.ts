import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore, type RecordedEvent } from '../../libs/eventstore/src';
import { recordLogReads } from '../../libs/eventstore/src/sqlite/testing/log-reads';
import { eventStoreContract, newEvent } from './eventstore.contract';
import { streamRetentionContract } from './stream-retention.contract';
import { expectContiguousRevisions, readEverything, writerPool } from './support/store-writer';

// Child processes start through tsx on a shared 2-core machine; this is a hang guard, not a measurement.
jest.setTimeout(120_000);

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'railyard-sqlite-'));
  tempDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

eventStoreContract('sqlite', async () => {
  const dir = await tempDir();
  return {
    store: new SqliteEventStore({ file: join(dir, 'events.sqlite') }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

// The simple design D48's hand-over is measured against (D333): the same contract, every read from the file.
eventStoreContract('sqlite, hand-over off', async () => {
  const dir = await tempDir();
  return {
    store: new SqliteEventStore({ file: join(dir, 'events.sqlite'), handOver: false }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

streamRetentionContract('sqlite', async (clock) => {
  const dir = await tempDir();
  return {
    store: new SqliteEventStore({ file: join(dir, 'events.sqlite'), now: clock.now }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('sqlite event store', () => {
  const writers = writerPool();
  const writer = writers.start;

  afterEach(() => writers.killAll());

  it('when the store is reopened, then its events are all there and new positions continue after them', async () => {
    const file = join(await tempDir(), 'events.sqlite');
    const first = new SqliteEventStore({ file });
    const events = [newEvent('A', { n: 1 }), newEvent('B', { n: 2 })];
    const appended = await first.append('reopen', events, 'no_stream');
    await first.close();

    const second = new SqliteEventStore({ file });
    expect((await second.readStream('reopen')).map((e) => [e.eventId, e.data])).toEqual(events.map((e) => [e.eventId, e.data]));
    const later = await second.append('reopen', [newEvent('C')], 1);
    expect(later.position > appended.position).toBe(true);
    await second.close();
  });

  it('when the first append is made, then its global position is 1', async () => {
    const store = new SqliteEventStore({ file: join(await tempDir(), 'events.sqlite') });
    await expect(store.append('first', [newEvent('A'), newEvent('B')], 'no_stream')).resolves.toEqual({ nextRevision: 1, position: 2n });
    await store.close();
  });

  it('when the file lives in a directory that does not exist, then the directory is created', async () => {
    const file = join(await tempDir(), 'nested', 'deeper', 'events.sqlite');
    const store = new SqliteEventStore({ file });
    await store.append('s', [newEvent('A')], 'no_stream');
    await store.close();

    const reopened = new SqliteEventStore({ file });
    await expect(reopened.readStream('s')).resolves.toHaveLength(1);
    await reopened.close();
  });

  it('when the store is opened, then the file is in WAL mode with the events schema', async () => {
    const file = join(await tempDir(), 'events.sqlite');
    const store = new SqliteEventStore({ file, synchronous: 'NORMAL', busyTimeoutMs: 1_000 });
    await store.append('s', [newEvent('A')], 'no_stream');
    await store.close();

    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const columns = (db.pragma('table_info(events)') as { name: string }[]).map((c) => c.name);
      expect(columns).toEqual(['global_position', 'stream_id', 'revision', 'event_id', 'type', 'data', 'metadata', 'recorded_at']);
    } finally {
      db.close();
    }
  });

  it('when two store objects share one file in a process, then the expected-revision check spans both', async () => {
    const file = join(await tempDir(), 'events.sqlite');
    const a = new SqliteEventStore({ file });
    const b = new SqliteEventStore({ file });
    await a.append('shared', [newEvent('A')], 'no_stream');

    await expect(b.append('shared', [newEvent('B')], 'no_stream')).rejects.toMatchObject({ actual: 0 });
    await expect(b.append('shared', [newEvent('B')], 0)).resolves.toMatchObject({ nextRevision: 1 });
    expect(await a.readStream('shared')).toHaveLength(2);
    await Promise.all([a.close(), b.close()]);
  });

  /** A child process appends `appends` times to `file`; answers what a subscription here received and what the child acknowledged. */
  const receiveFromChild = async (
    options: { pollIntervalMs?: number },
    plan: { tag: string; eventsPerAppend: number; appends: number },
  ): Promise<{ received: string[]; expected: string[] }> => {
    const file = join(await tempDir(), 'events.sqlite');
    const store = new SqliteEventStore({ file, ...options });
    const received: string[] = [];
    let notify = (): void => undefined;
    const subscription = store.subscribe({
      fromPosition: null,
      onEvents: async (batch) => {
        received.push(...batch.map((e) => e.eventId));
        notify();
      },
    });
    const child = writer({ store: { kind: 'sqlite', file }, streams: [plan.tag], ...plan });
    await child.ready();
    child.go();
    await child.finished();

    const expected = child.acks.flatMap((a) => a.eventIds);
    await new Promise<void>((done) => {
      notify = () => {
        if (received.length >= expected.length) done();
      };
      notify();
    });
    await subscription.close();
    await store.close();
    return { received, expected };
  };

  it('when another process appends, then a subscription in this process receives its events', async () => {
    const { received, expected } = await receiveFromChild({}, { tag: 'remote', eventsPerAppend: 2, appends: 10 });
    expect(received).toEqual(expected);
  });

  it('when another process appends, then a subscription here is woken by the file, not by its next poll', async () => {
    // A poll interval far beyond the test's time-out: only the watch on the file can deliver in time.
    const { received, expected } = await receiveFromChild({ pollIntervalMs: 3_600_000 }, { tag: 'woken', eventsPerAppend: 1, appends: 3 });
    expect(received).toEqual(expected);
  });

  it('when another process has appended, then a subscription here reads again after delivering this process’s own appends', async () => {
    const file = join(await tempDir(), 'events.sqlite');
    // No poll within the test: every read is one a commit or the watch caused.
    const store = new SqliteEventStore({ file, pollIntervalMs: 3_600_000 });
    const received: RecordedEvent[] = [];
    const subscription = store.subscribe({ fromPosition: null, onEvents: async (batch) => void received.push(...batch) });
    const arrived = async (count: number) => {
      while (received.length < count) await new Promise((r) => setTimeout(r, 5));
    };
    const settled = () => new Promise((r) => setTimeout(r, 100));
    const reads = recordLogReads();
    try {
      await store.append('mine', [newEvent('A')], 'no_stream');
      await arrived(1);
      await settled();
      // The only writer so far: its commit handed the events over, and nothing was read (D48).
      expect(reads.reads).toEqual([]);

      const child = writer({ store: { kind: 'sqlite', file }, tag: 'theirs', streams: ['theirs'], eventsPerAppend: 1, appends: 1 });
      await child.ready();
      child.go();
      await child.finished();
      await arrived(2);
      reads.reads.length = 0;

      await store.append('mine', [newEvent('B')], 0);
      await arrived(3);
      await settled();
      // Another process writes too: after a delivery, the end of the log is read, not assumed.
      expect(reads.reads).toContain(0);
    } finally {
      reads.restore();
      await subscription.close();
      await store.close();
    }
    expect(received.map((e) => e.streamId)).toEqual(['mine', 'theirs', 'mine']);
  });

  it('when two processes append to the same streams at once, then no event is lost or doubled and revisions stay contiguous', async () => {
    const file = join(await tempDir(), 'events.sqlite');
    // Created here first, so the children only ever open an existing WAL database.
    await new SqliteEventStore({ file }).close();
    const streams = ['contended-1', 'contended-2'];
    const children = ['left', 'right'].map((tag) =>
      writer({ store: { kind: 'sqlite', file }, tag, streams, eventsPerAppend: 3, appends: 60 }),
    );
    await Promise.all(children.map((c) => c.ready()));
    children.forEach((c) => c.go());
    await Promise.all(children.map((c) => c.finished()));

    const store = new SqliteEventStore({ file });
    const all = await readEverything(store);
    await store.close();
    const acks = children.flatMap((c) => c.acks);
    const ackedIds = acks.flatMap((a) => a.eventIds);

    expect(acks).toHaveLength(120);
    expect(all).toHaveLength(360);
    expect(new Set(all.map((e) => e.eventId)).size).toBe(360);
    expect(new Set(all.map((e) => e.eventId))).toEqual(new Set(ackedIds));
    expectContiguousRevisions(all);
    all.slice(1).forEach((e, i) => expect(e.position > (all[i] as RecordedEvent).position).toBe(true));
    const byId = new Map(all.map((e) => [e.eventId, e]));
    for (const ack of acks) {
      const last = byId.get(ack.eventIds[ack.eventIds.length - 1] as string);
      expect(last).toMatchObject({ streamId: ack.stream, revision: ack.nextRevision, position: BigInt(ack.position) });
    }
    // Both writers really interleaved in the shared streams, so the check above was a contended one.
    const tagsOf = (stream: string) => new Set(all.filter((e) => e.streamId === stream).map((e) => (e.data as { tag: string }).tag));
    for (const stream of streams) expect(tagsOf(stream)).toEqual(new Set(['left', 'right']));
  });

  it('when a writer is killed with SIGKILL in the middle of a burst, then the store opens cleanly and holds every acknowledged append whole', async () => {
    const file = join(await tempDir(), 'events.sqlite');
    await new SqliteEventStore({ file }).close();
    const child = writer({
      store: { kind: 'sqlite', file },
      tag: 'doomed',
      streams: ['burst-a', 'burst-b'],
      eventsPerAppend: 5,
      appends: null,
    });
    await child.ready();
    child.go();
    await child.until(() => child.acks.length >= 40);
    process.kill(child.scriptPid, 'SIGKILL');
    await child.exited;

    const db = new Database(file);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    const store = new SqliteEventStore({ file });
    const all = await readEverything(store);
    const stored = new Set(all.map((e) => e.eventId));
    for (const ack of child.acks) for (const id of ack.eventIds) expect(stored.has(id)).toBe(true);
    expectContiguousRevisions(all);
    // An append is all or nothing: every append number present has all five of its events.
    const sizes = new Map<string, number>();
    for (const e of all) {
      const key = `${e.streamId}#${(e.data as { appendNo: number }).appendNo}`;
      sizes.set(key, (sizes.get(key) ?? 0) + 1);
    }
    expect([...sizes.values()].every((n) => n === 5)).toBe(true);
    // The store still takes appends after the crash.
    const head = await store.readStream('burst-a');
    await expect(store.append('burst-a', [newEvent('After')], head.length - 1)).resolves.toMatchObject({ nextRevision: head.length });
    await store.close();
  });
});
