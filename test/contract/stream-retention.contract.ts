import type { EventStore, StreamRetention } from '../../libs/eventstore/src';
import { newEvent } from './eventstore.contract';
import { openPerTest, type Opened } from './support/open-per-test';

export type RetainingStore = EventStore & StreamRetention;

/** The store's clock, moved by the tests: recordedAt is what retention compares. */
export interface TestClock {
  now: () => Date;
}

const DAY = 86_400_000;
const start = Date.parse('2031-01-01T00:00:00.000Z');

/** Dropping old streams by prefix (docs/decisions.md D296), for every adapter that can. */
export function streamRetentionContract(name: string, makeStore: (clock: TestClock) => Promise<Opened<RetainingStore>>): void {
  describe(`${name} stream retention contract`, () => {
    let at = start;
    const clock: TestClock = { now: () => new Date(at) };
    let store: RetainingStore;
    beforeEach(() => {
      at = start;
    });
    openPerTest(
      () => makeStore(clock),
      (opened) => (store = opened),
    );

    const cutoff = (): Date => new Date(at - 30 * DAY);

    it('when streams with the prefix are older than the instant, then they are gone from reads and the others stay whole', async () => {
      await store.append('status-a', [newEvent('S', { n: 1 }), newEvent('S', { n: 2 })], 'any');
      await store.append('queue-q', [newEvent('Q')], 'any');
      await store.append('status-b', [newEvent('S', { n: 3 })], 'any');
      at += 40 * DAY;
      await store.append('queue-q', [newEvent('Q')], 'any');

      const dropped = await store.dropStreamsBefore('status-', cutoff());

      expect(dropped).toEqual({ streams: 2, events: 3, bytes: expect.any(Number), next: null });
      expect(dropped.bytes).toBeGreaterThan(3 * 10);
      expect(await store.readStream('status-a')).toEqual([]);
      expect((await store.readAll(null, 10)).map((e) => [e.streamId, e.position])).toEqual([
        ['queue-q', 3n],
        ['queue-q', 5n],
      ]);
      expect(await store.headPosition()).toBe(5n);
    });

    it('when a stream had an event after the instant, then all of it stays', async () => {
      await store.append('status-a', [newEvent('S')], 'any');
      at += 40 * DAY;
      await store.append('status-a', [newEvent('S')], 'any');
      await store.append('queue-q', [newEvent('Q')], 'any');

      expect(await store.dropStreamsBefore('status-', cutoff())).toMatchObject({ streams: 0, events: 0 });
      expect(await store.readStream('status-a')).toHaveLength(2);
    });

    it('when the newest event of the store is in an old stream, then that stream stays and the next append takes a new position', async () => {
      await store.append('queue-q', [newEvent('Q')], 'any');
      await store.append('status-a', [newEvent('S')], 'any');
      at += 40 * DAY;

      expect(await store.dropStreamsBefore('status-', cutoff())).toMatchObject({ streams: 0 });
      const { position } = await store.append('queue-q', [newEvent('Q')], 'any');
      expect(position).toBe(3n);
      expect(await store.dropStreamsBefore('status-', cutoff())).toMatchObject({ streams: 1, events: 1 });
      expect((await store.append('queue-q', [newEvent('Q')], 'any')).position).toBe(4n);
    });

    it('when a stream has an event at or after keepFrom, then it stays however old it is', async () => {
      await store.append('status-a', [newEvent('S')], 'any');
      await store.append('status-b', [newEvent('S')], 'any');
      at += 40 * DAY;
      await store.append('queue-q', [newEvent('Q')], 'any');

      expect(await store.dropStreamsBefore('status-', cutoff(), { keepFrom: 2n })).toMatchObject({ streams: 1 });
      expect(await store.readStream('status-a')).toEqual([]);
      expect(await store.readStream('status-b')).toHaveLength(1);
    });

    it('when more old streams exist than one call takes, then next leads through them all in stream-id order', async () => {
      for (const id of ['status-d', 'status-b', 'status-a', 'status-c', 'status-e']) await store.append(id, [newEvent('S')], 'any');
      at += 40 * DAY;
      await store.append('queue-q', [newEvent('Q')], 'any');

      const first = await store.dropStreamsBefore('status-', cutoff(), { maxStreams: 2 });
      const second = await store.dropStreamsBefore('status-', cutoff(), { maxStreams: 2, after: first.next ?? undefined });
      const third = await store.dropStreamsBefore('status-', cutoff(), { maxStreams: 2, after: second.next ?? undefined });

      expect([first, second, third].map((d) => [d.streams, d.next])).toEqual([
        [2, 'status-b'],
        [2, 'status-d'],
        [1, null],
      ]);
      expect((await store.readAll(null, 10)).map((e) => e.streamId)).toEqual(['queue-q']);
    });

    it('when a dropped stream is reported to again, then it starts anew and reads only the new event', async () => {
      await store.append('status-a', [newEvent('S', { n: 1 })], 'any');
      at += 40 * DAY;
      await store.append('queue-q', [newEvent('Q')], 'any');
      await store.dropStreamsBefore('status-', cutoff());

      await store.append('status-a', [newEvent('S', { n: 2 })], 'any');

      expect((await store.readStream('status-a')).map((e) => [e.revision, e.data])).toEqual([[0, { n: 2 }]]);
    });
  });
}
