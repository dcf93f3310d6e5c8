import { randomUUID } from 'node:crypto';
import {
  EventIdConflictError,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  type SubscribeOptions,
} from '../../libs/eventstore/src';
import { openPerTest, type Opened } from './support/open-per-test';

export type StoreUnderTest = Opened<EventStore>;

/**
 * What an adapter may lack. Tests needing a missing capability are not defined for it; only the
 * KurrentDB run opts out of anything.
 */
export interface ContractOptions {
  /** The store refuses an event id already recorded in another stream (KurrentDB only checks within one). */
  eventIdsUniqueAcrossStore?: boolean;
  /** Every makeStore() gives an empty store (not so for a shared KurrentDB server). */
  startsEmpty?: boolean;
}

const runId = randomUUID().slice(0, 8);
let streamCounter = 0;
/** Stream names unique to this run, so a shared server's older data never matches. */
const uniqueStream = (label: string): string => `${label}-${runId}-${++streamCounter}`;

const metadata = (extra: Partial<EventMetadata> = {}): EventMetadata => ({
  schemaVersion: 1,
  actor: 'contract-test',
  correlationId: randomUUID(),
  at: '2026-01-02T03:04:05.000Z',
  ...extra,
});

export const newEvent = (type: string, data: unknown = { n: 0 }, meta: EventMetadata = metadata()): NewEvent => ({
  eventId: randomUUID(),
  type,
  data,
  metadata: meta,
});

const numbered = (count: number, type = 'Numbered'): NewEvent[] => Array.from({ length: count }, (_, n) => newEvent(type, { n }));

/** Catches a rejection so its fields can be asserted on. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

/** Records every batch a subscription hands over and lets a test wait for a condition on them. */
export class Collector {
  readonly batches: RecordedEvent[][] = [];
  private readonly waiters: { test: () => boolean; resolve: () => void }[] = [];

  readonly onEvents = async (batch: RecordedEvent[]): Promise<void> => {
    this.batches.push(batch);
    for (const waiter of [...this.waiters]) {
      if (waiter.test()) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  get events(): RecordedEvent[] {
    return this.batches.flat();
  }

  /** Delivered events of the given streams (a shared server may carry others). */
  eventsOf(streams: readonly string[]): RecordedEvent[] {
    return this.events.filter((e) => streams.includes(e.streamId));
  }

  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  untilSeen(eventIds: readonly string[]): Promise<void> {
    return this.until(() => {
      const seen = new Set(this.events.map((e) => e.eventId));
      return eventIds.every((id) => seen.has(id));
    });
  }
}

const ids = (events: readonly { eventId: string }[]): string[] => events.map((e) => e.eventId);

function expectStrictlyIncreasing(positions: readonly bigint[]): void {
  positions.slice(1).forEach((p, i) => {
    expect(p > (positions[i] as bigint)).toBe(true);
  });
}

export function eventStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const uniqueIds = options.eventIdsUniqueAcrossStore ?? true;
  const startsEmpty = options.startsEmpty ?? true;
  const omitted = (): void => undefined;
  const whenUniqueIds = uniqueIds ? it : omitted;
  const whenEmpty = startsEmpty ? it : omitted;

  describe(`${name} event store contract`, () => {
    let store: EventStore;
    openPerTest(makeStore, (opened) => (store = opened));

    describe('append and readStream', () => {
      it('when events are appended to a new stream, then readStream returns them in order from revision 0', async () => {
        const stream = uniqueStream('basic');
        const events = [newEvent('First', { a: 1 }), newEvent('Second', { b: [1, 2] })];
        await store.append(stream, events, 'no_stream');

        const read = await store.readStream(stream);
        expect(read.map((e) => [e.streamId, e.revision, e.eventId, e.type, e.data])).toEqual([
          [stream, 0, events[0]?.eventId, 'First', { a: 1 }],
          [stream, 1, events[1]?.eventId, 'Second', { b: [1, 2] }],
        ]);
        expect(read.map((e) => e.metadata)).toEqual(events.map((e) => e.metadata));
        for (const e of read) {
          expect(typeof e.position).toBe('bigint');
          expect(new Date(e.recordedAt).toISOString()).toBe(e.recordedAt);
        }
      });

      it('when an append succeeds, then its result names the last revision and the last event position', async () => {
        const stream = uniqueStream('result');
        const first = await store.append(stream, numbered(3), 'no_stream');
        const second = await store.append(stream, numbered(2), 2);

        const read = await store.readStream(stream);
        expect(first).toEqual({ nextRevision: 2, position: read[2]?.position });
        expect(second).toEqual({ nextRevision: 4, position: read[4]?.position });
      });

      it('when a stream was never written, then readStream returns an empty list', async () => {
        await expect(store.readStream(uniqueStream('missing'))).resolves.toEqual([]);
      });

      it('when reading from a revision, then only events at or after it are returned', async () => {
        const stream = uniqueStream('from');
        await store.append(stream, numbered(5), 'no_stream');

        expect((await store.readStream(stream, 3)).map((e) => e.revision)).toEqual([3, 4]);
        expect(await store.readStream(stream, 5)).toEqual([]);
      });

      it('when reading with a maxCount, then at most that many events from the revision come back, in order', async () => {
        const stream = uniqueStream('page');
        await store.append(stream, numbered(5), 'no_stream');
        expect((await store.readStream(stream, 1, 2)).map((e) => e.revision)).toEqual([1, 2]);
        expect((await store.readStream(stream, 4, 2)).map((e) => e.revision)).toEqual([4]);
        expect(await store.readStream(stream, 5, 2)).toEqual([]);
      });

      it('when an append has no events, then it is refused', async () => {
        await expect(store.append(uniqueStream('empty'), [], 'any')).rejects.toThrow(RangeError);
      });

      it('when event data is not JSON-serialisable, then the append is refused and writes nothing', async () => {
        const stream = uniqueStream('not-json');
        await expect(store.append(stream, [{ ...newEvent('Bad'), data: undefined }], 'no_stream')).rejects.toThrow(TypeError);
        await expect(store.append(stream, [newEvent('Bad', { big: 10n })], 'no_stream')).rejects.toThrow(TypeError);
        expect(await store.readStream(stream)).toEqual([]);
      });
    });

    describe('expected revision', () => {
      it('when expecting no_stream on an existing stream, then WrongExpectedRevisionError carries the actual revision', async () => {
        const stream = uniqueStream('exists');
        await store.append(stream, numbered(2), 'no_stream');

        const err = await failureOf(store.append(stream, numbered(1), 'no_stream'));
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect(err).toMatchObject({ streamId: stream, expected: 'no_stream', actual: 1 });
      });

      it('when expecting the current revision, then the append succeeds', async () => {
        const stream = uniqueStream('current');
        await store.append(stream, numbered(2), 'no_stream');

        await expect(store.append(stream, numbered(1), 1)).resolves.toMatchObject({ nextRevision: 2 });
      });

      it('when expecting a stale revision, then WrongExpectedRevisionError names expected and actual', async () => {
        const stream = uniqueStream('stale');
        await store.append(stream, numbered(3), 'no_stream');

        const err = await failureOf(store.append(stream, numbered(1), 0));
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect(err).toMatchObject({ streamId: stream, expected: 0, actual: 2 });
      });

      it('when expecting a revision of a stream that does not exist, then the actual revision is no_stream', async () => {
        const stream = uniqueStream('absent');

        const err = await failureOf(store.append(stream, numbered(1), 4));
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect(err).toMatchObject({ expected: 4, actual: 'no_stream' });
      });

      it('when expecting any, then the append succeeds whether or not the stream exists', async () => {
        const stream = uniqueStream('any');
        await expect(store.append(stream, numbered(1), 'any')).resolves.toMatchObject({ nextRevision: 0 });
        await expect(store.append(stream, numbered(2), 'any')).resolves.toMatchObject({ nextRevision: 2 });
      });

      it('when an append is refused, then none of its events are written', async () => {
        const stream = uniqueStream('refused');
        await store.append(stream, numbered(1), 'no_stream');
        const refused = numbered(3);

        await expect(store.append(stream, refused, 'no_stream')).rejects.toThrow(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toHaveLength(1);
      });
    });

    describe('concurrent appends', () => {
      it('when several appends race with the same expected revision, then exactly one wins and the others see the conflict', async () => {
        const stream = uniqueStream('race');
        await store.append(stream, numbered(1), 'no_stream');
        const attempts = Array.from({ length: 8 }, () => numbered(2));

        const outcomes = await Promise.allSettled(attempts.map((events) => store.append(stream, events, 0)));

        const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') {
            expect(outcome.reason).toBeInstanceOf(WrongExpectedRevisionError);
            expect(outcome.reason).toMatchObject({ expected: 0, actual: 2 });
          }
        }
        const read = await store.readStream(stream);
        expect(read.map((e) => e.revision)).toEqual([0, 1, 2]);
        expect(ids(read.slice(1))).toEqual(ids(attempts[won[0] as number] ?? []));
      });

      it('when new streams are created concurrently with no_stream, then exactly one creation per stream wins', async () => {
        const stream = uniqueStream('create-race');
        const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => store.append(stream, numbered(1), 'no_stream')));

        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(await store.readStream(stream)).toHaveLength(1);
      });
    });

    describe('idempotent re-append', () => {
      it('when the same events are appended again with the same expected revision, then the original result comes back and nothing is written', async () => {
        const stream = uniqueStream('retry');
        const created = numbered(2);
        const original = await store.append(stream, created, 'no_stream');
        const next = numbered(1);
        const nextOriginal = await store.append(stream, next, 1);

        await expect(store.append(stream, created, 'no_stream')).resolves.toEqual(original);
        await expect(store.append(stream, next, 1)).resolves.toEqual(nextOriginal);
        expect(ids(await store.readStream(stream))).toEqual(ids([...created, ...next]));
      });

      it('when a retry arrives after the stream has moved on, then it still gets the original result', async () => {
        const stream = uniqueStream('late-retry');
        const first = numbered(1);
        const original = await store.append(stream, first, 'no_stream');
        await store.append(stream, numbered(2), 0);

        await expect(store.append(stream, first, 'no_stream')).resolves.toEqual(original);
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it('when a retry mixes known and new event ids, then the append is refused and writes nothing', async () => {
        const stream = uniqueStream('mixed');
        const known = numbered(1);
        await store.append(stream, known, 'no_stream');

        await expect(store.append(stream, [...known, newEvent('New')], 'no_stream')).rejects.toThrow(Error);
        expect(ids(await store.readStream(stream))).toEqual(ids(known));
      });

      whenUniqueIds('when the same events are appended again with expected any, then the original result comes back', async () => {
        const stream = uniqueStream('retry-any');
        await store.append(stream, numbered(1), 'no_stream');
        const events = numbered(2);
        const original = await store.append(stream, events, 'any');

        await expect(store.append(stream, events, 'any')).resolves.toEqual(original);
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      whenUniqueIds(
        'when event ids already recorded in another stream are appended, then EventIdConflictError is raised and nothing is written',
        async () => {
          const home = uniqueStream('home');
          const other = uniqueStream('other');
          const events = numbered(1);
          await store.append(home, events, 'no_stream');

          const err = await failureOf(store.append(other, events, 'no_stream'));
          expect(err).toBeInstanceOf(EventIdConflictError);
          expect(err).toMatchObject({ streamId: other, conflictingIds: ids(events) });
          expect(await store.readStream(other)).toEqual([]);
        },
      );

      whenUniqueIds('when known ids are re-appended at other revisions of their stream, then EventIdConflictError is raised', async () => {
        const stream = uniqueStream('shifted');
        const events = numbered(1);
        await store.append(stream, numbered(1), 'no_stream');
        await store.append(stream, events, 0);

        await expect(store.append(stream, events, 'no_stream')).rejects.toThrow(EventIdConflictError);
        expect(await store.readStream(stream)).toHaveLength(2);
      });
    });

    describe('readAll and headPosition', () => {
      it('when paging through all events from a position, then pages follow global order across streams and exclude that position', async () => {
        const before = await store.headPosition();
        const streams = [uniqueStream('all-a'), uniqueStream('all-b'), uniqueStream('all-c')];
        const appended: NewEvent[] = [];
        const expectedRevision = new Map<string, number | 'no_stream'>();
        for (let i = 0; i < 9; i++) {
          const stream = streams[i % 3] as string;
          const events = numbered(1 + (i % 2));
          const result = await store.append(stream, events, expectedRevision.get(stream) ?? 'no_stream');
          expectedRevision.set(stream, result.nextRevision);
          appended.push(...events);
        }

        const seen: RecordedEvent[] = [];
        let from = before;
        for (;;) {
          const page = await store.readAll(from, 4);
          expect(page.length).toBeLessThanOrEqual(4);
          const last = page[page.length - 1];
          if (!last) break;
          for (const e of page) expect(from === null || e.position > from).toBe(true);
          seen.push(...page);
          from = last.position;
        }

        const ours = seen.filter((e) => streams.includes(e.streamId));
        expect(ids(ours)).toEqual(ids(appended));
        expectStrictlyIncreasing(seen.map((e) => e.position));
      });

      it('when reading all from the position of an event, then that event is not returned again', async () => {
        const stream = uniqueStream('exclusive');
        await store.append(stream, numbered(3), 'no_stream');
        const [first, second] = await store.readStream(stream);

        const page = await store.readAll(first?.position ?? null, 1);
        expect(ids(page)).toEqual(ids(second ? [second] : []));
      });

      it('when events are appended, then headPosition is the position of the newest one', async () => {
        await store.append(uniqueStream('head-a'), numbered(2), 'no_stream');
        const last = await store.append(uniqueStream('head-b'), numbered(1), 'no_stream');

        await expect(store.headPosition()).resolves.toBe(last.position);
        await expect(store.readAll(last.position, 10)).resolves.toEqual([]);
      });

      whenEmpty('when the store is empty, then headPosition is null and readAll returns nothing', async () => {
        await expect(store.headPosition()).resolves.toBeNull();
        await expect(store.readAll(null, 10)).resolves.toEqual([]);
      });

      whenEmpty('when reading all from null, then it starts at the first event ever appended', async () => {
        const first = numbered(2);
        await store.append(uniqueStream('start'), first, 'no_stream');
        await store.append(uniqueStream('start'), numbered(1), 'no_stream');

        expect(ids(await store.readAll(null, 2))).toEqual(ids(first));
      });
    });

    describe('subscribe', () => {
      const open = (collector: Collector, fromPosition: bigint | null, extra: Partial<SubscribeOptions> = {}) =>
        store.subscribe({ fromPosition, onEvents: collector.onEvents, ...extra });

      it('when subscribing from a position, then older events are caught up and new appends arrive live, in order, once each', async () => {
        const stream = uniqueStream('live');
        const skipped = await store.append(stream, numbered(2), 'no_stream');
        const history = numbered(5);
        await store.append(stream, history, 1);
        const collector = new Collector();

        const subscription = open(collector, skipped.position, { batchSize: 2 });
        await collector.untilSeen(ids(history));
        const live = [numbered(1), numbered(3), numbered(2)];
        let revision = 6;
        for (const events of live) {
          revision = (await store.append(stream, events, revision)).nextRevision;
        }
        await collector.untilSeen(ids(live.flat()));
        await subscription.close();

        const delivered = collector.eventsOf([stream]);
        expect(ids(delivered)).toEqual(ids([...history, ...live.flat()]));
        expectStrictlyIncreasing(collector.events.map((e) => e.position));
        for (const batch of collector.batches) expect(batch.length).toBeLessThanOrEqual(2);
      });

      it('when the handler is slow, then the next batch waits for it to finish', async () => {
        const stream = uniqueStream('slow');
        const from = await store.headPosition();
        const events = numbered(12);
        await store.append(stream, events, 'no_stream');
        let running = 0;
        let overlapped = false;
        const collector = new Collector();

        const subscription = open(collector, from, {
          batchSize: 3,
          onEvents: async (batch) => {
            running += 1;
            overlapped ||= running > 1;
            await new Promise((resolve) => setImmediate(resolve));
            running -= 1;
            await collector.onEvents(batch);
          },
        });
        await collector.untilSeen(ids(events));
        await subscription.close();

        expect(overlapped).toBe(false);
        expect(ids(collector.eventsOf([stream]))).toEqual(ids(events));
      });

      it('when a subscription is closed, then it delivers nothing more', async () => {
        const stream = uniqueStream('closed');
        const from = await store.headPosition();
        const collector = new Collector();
        const subscription = open(collector, from);
        const before = numbered(1);
        await store.append(stream, before, 'no_stream');
        await collector.untilSeen(ids(before));

        await subscription.close();
        const after = numbered(2);
        await store.append(stream, after, 0);
        // A second subscription seeing the new events shows they were there to be delivered.
        const witness = new Collector();
        const witnessSubscription = open(witness, from);
        await witness.untilSeen(ids(after));
        await witnessSubscription.close();

        expect(ids(collector.eventsOf([stream]))).toEqual(ids(before));
      });

      it('when the handler throws, then the subscription stops and onError receives the error', async () => {
        const stream = uniqueStream('throws');
        const from = await store.headPosition();
        await store.append(stream, numbered(3), 'no_stream');
        let calls = 0;
        const failure = new Error('projection broke');

        const reported = await new Promise<Error>((resolve) => {
          store.subscribe({
            fromPosition: from,
            batchSize: 1,
            onEvents: async () => {
              calls += 1;
              throw failure;
            },
            onError: resolve,
          });
        });

        expect(reported).toBe(failure);
        expect(calls).toBe(1);
      });

      it('when a handler closes its own subscription, then close returns and nothing more is delivered', async () => {
        const stream = uniqueStream('self-close');
        const from = await store.headPosition();
        await store.append(stream, numbered(4), 'no_stream');
        const batches: RecordedEvent[][] = [];

        await new Promise<void>((resolve) => {
          const subscription = store.subscribe({
            fromPosition: from,
            batchSize: 1,
            onEvents: async (batch) => {
              batches.push(batch);
              await subscription.close();
              resolve();
            },
          });
        });

        expect(batches).toHaveLength(1);
      });

      it('when the store is closed with a subscription open, then the subscription stops with it', async () => {
        const from = await store.headPosition();
        const collector = new Collector();
        open(collector, from);
        const events = numbered(1);
        await store.append(uniqueStream('store-close'), events, 'no_stream');
        await collector.untilSeen(ids(events));

        await store.close();
        expect(collector.events.length).toBeGreaterThan(0);
      });

      whenEmpty('when subscribing from null, then every event from the first one is delivered', async () => {
        const stream = uniqueStream('from-start');
        const events = numbered(3);
        await store.append(stream, events, 'no_stream');
        const collector = new Collector();

        const subscription = open(collector, null);
        await collector.untilSeen(ids(events));
        await subscription.close();

        expect(ids(collector.events)).toEqual(ids(events));
      });
    });

    describe('payloads and names', () => {
      const payload = {
        text: 'Zoë ☃ 東京 — עברית 🚂🚃🚃 e\u0301 \u2028 "quoted" \\ back\\slash',
        nested: { list: [1, -2.5, 1e21, null, true, false, { deep: { deeper: ['x', { k: 'v' }] } }], empty: {}, none: [] },
        zero: 0,
      };

      it('when data and metadata hold nested JSON and unicode, then every read path returns them unchanged', async () => {
        const stream = uniqueStream('payload');
        const from = await store.headPosition();
        const meta = metadata({ causationId: randomUUID(), actor: 'ünïcödé-actor 🚀', extra: { tags: ['a', 'b'], n: 3 } });
        const event = newEvent('PayloadCarried', payload, meta);
        await store.append(stream, [event, newEvent('Scalar', 'just a string')], 'no_stream');

        const [viaStream] = await store.readStream(stream);
        const viaAll = (await store.readAll(from, 100)).find((e) => e.eventId === event.eventId);
        const collector = new Collector();
        const subscription = store.subscribe({ fromPosition: from, onEvents: collector.onEvents });
        await collector.untilSeen([event.eventId]);
        await subscription.close();
        const viaSubscription = collector.events.find((e) => e.eventId === event.eventId);

        for (const read of [viaStream, viaAll, viaSubscription]) {
          expect(read?.data).toEqual(payload);
          expect(read?.metadata).toEqual(meta);
        }
        expect((await store.readStream(stream, 1))[0]?.data).toBe('just a string');
      });

      it('when stream names contain / @ ~ and %, then each stream keeps exactly its own events', async () => {
        const base = uniqueStream('queue-github.com~acme~app');
        const names = [`${base}~feature/x@y`, `${base}~feature%2Fx%40y`, `${base}~feature`, `${base}~a~b/c%d@e`];
        const appended = new Map<string, string[]>();
        for (const name of names) {
          const events = numbered(2);
          await store.append(name, events, 'no_stream');
          appended.set(name, ids(events));
        }

        for (const name of names) {
          const read = await store.readStream(name);
          expect(ids(read)).toEqual(appended.get(name));
          expect(read.every((e) => e.streamId === name)).toBe(true);
        }
      });
    });
  });
}
