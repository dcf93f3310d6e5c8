import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { NewEvent, RecordedEvent, Subscription } from '../port';
import { SqliteEventStore } from './sqlite-event-store';
import { recordLogReads } from './testing/log-reads';

const event = (n: number): NewEvent => ({
  eventId: randomUUID(),
  type: 'Numbered',
  data: { n, nested: { list: [n] } },
  metadata: { schemaVersion: 1, actor: 'test', correlationId: randomUUID(), at: '2025-01-01T00:00:00.000Z' },
});

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error('timed out');
};

describe('SQLite event store: committed events handed to caught-up subscribers', () => {
  let dir: string;
  let stores: SqliteEventStore[];
  let subscriptions: Subscription[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'railyard-committed-tail-'));
    stores = [];
    subscriptions = [];
  });

  afterEach(async () => {
    for (const s of subscriptions) await s.close();
    for (const s of stores) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  const open = (pollIntervalMs = 20, handOver = true): SqliteEventStore => {
    const store = new SqliteEventStore({ file: join(dir, 'events.sqlite'), pollIntervalMs, handOver });
    stores.push(store);
    return store;
  };

  const follow = (store: SqliteEventStore): RecordedEvent[] => {
    const seen: RecordedEvent[] = [];
    subscriptions.push(store.subscribe({ fromPosition: null, onEvents: async (events) => void seen.push(...events) }));
    return seen;
  };

  it('when caught-up subscribers are woken by this store’s own commit, then each is given the events without reading the log, as objects of its own', async () => {
    // No poll within the test: every read is one the commit caused.
    const store = open(60_000);
    await store.append('s-0', [event(0)], 'no_stream');
    const first = follow(store);
    const second = follow(store);
    await until(() => first.length === 1 && second.length === 1);
    const reads = recordLogReads();
    try {
      await Promise.all([store.append('s-a', [event(1), event(2)], 'no_stream'), store.append('s-b', [event(3)], 'no_stream')]);
      await until(() => first.length === 4 && second.length === 4);
      // Nor a read after the delivery to find nothing: no other process has written to the file.
      await new Promise((r) => setTimeout(r, 50));
      expect(reads.reads).toEqual([]);
    } finally {
      reads.restore();
    }
    expect(first.map((e) => [e.position, e.streamId, e.revision, e.data])).toEqual([
      [1n, 's-0', 0, { n: 0, nested: { list: [0] } }],
      [2n, 's-a', 0, { n: 1, nested: { list: [1] } }],
      [3n, 's-a', 1, { n: 2, nested: { list: [2] } }],
      [4n, 's-b', 0, { n: 3, nested: { list: [3] } }],
    ]);
    expect(second.slice(1)).toEqual(first.slice(1));
    expect(second[1]?.data).not.toBe(first[1]?.data);
    expect(first.slice(1)).toEqual(await store.readAll(1n, 10));
  });

  it('when the hand-over is off, then woken subscribers read the log for the same events, as the simple design does (D333)', async () => {
    const store = open(60_000, false);
    await store.append('s-0', [event(0)], 'no_stream');
    const seen = follow(store);
    await until(() => seen.length === 1);
    const reads = recordLogReads();
    try {
      await store.append('s-a', [event(1), event(2)], 'no_stream');
      await until(() => seen.length === 3);
      // The page the commit woke it for, then the short page that says the log ends there.
      await until(() => reads.reads.length >= 2);
    } finally {
      reads.restore();
    }
    expect(seen.slice(1)).toEqual(await store.readAll(1n, 10));
  });

  it('when an append of the group is refused, then subscribers are given exactly the events that were written', async () => {
    const store = open();
    await store.append('s-a', [event(0)], 'no_stream');
    const seen = follow(store);
    await until(() => seen.length === 1);

    const results = await Promise.allSettled([
      store.append('s-a', [event(1)], 'no_stream'),
      store.append('s-b', [event(2)], 'no_stream'),
      store.append('s-a', [event(3)], 0),
    ]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    await until(() => seen.length === 3);
    expect(seen.map((e) => [e.position, e.streamId, (e.data as { n: number }).n])).toEqual([
      [1n, 's-a', 0],
      [2n, 's-b', 2],
      [3n, 's-a', 3],
    ]);
  });

  it('when another process commits between two of this store’s commits unannounced, then a subscriber still gets every event in order', async () => {
    const store = open();
    const seen = follow(store);
    await store.append('mine', [event(1)], 'no_stream');
    await until(() => seen.length === 1);
    // Another process's writer, whose commit this process is not told of.
    const theirs = new Database(join(dir, 'events.sqlite'));
    try {
      const { data, metadata } = event(2);
      theirs
        .prepare('INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at) VALUES (?, 0, ?, ?, ?, ?, ?)')
        .run('theirs', randomUUID(), 'Numbered', JSON.stringify(data), JSON.stringify(metadata), '2025-01-01T00:00:00.000Z');
    } finally {
      theirs.close();
    }

    await store.append('mine', [event(3)], 0);

    await until(() => seen.length === 3);
    expect(seen.map((e) => [e.position, e.streamId, (e.data as { n: number }).n])).toEqual([
      [1n, 'mine', 1],
      [2n, 'theirs', 2],
      [3n, 'mine', 3],
    ]);
  });
});
