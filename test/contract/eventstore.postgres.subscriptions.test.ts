import { PostgresEventStore, type Subscription } from '../../libs/eventstore/src';
import { Collector, newEvent } from './eventstore.contract';
import { describePostgres } from './support/postgres';

/**
 * Subscriptions are woken by LISTEN/NOTIFY and poll as a safety net. These tests take the wake-up
 * away in the ways production loses it and check no event is lost. The appender is a store object
 * of its own, so nothing but the database can tell the subscriber about its appends.
 */
describePostgres('postgres event store subscriptions', (db) => {
  let schema: string;
  let subscriber: PostgresEventStore;
  let appender: PostgresEventStore;
  let subscription: Subscription | undefined;

  const openPair = async (pollIntervalMs: number): Promise<void> => {
    schema = db.newSchema();
    const url = await db.url();
    subscriber = await PostgresEventStore.open({ url, schema, pollIntervalMs });
    appender = await PostgresEventStore.open({ url, schema });
  };

  afterEach(async () => {
    await subscription?.close();
    subscription = undefined;
    await subscriber.close();
    await appender.close();
    await db.dropSchema(schema);
  });

  const listenerPids = () => db.waitForSession("application_name = 'railyard-listen' AND query ILIKE 'LISTEN%'");

  /** A subscriber idle at the end of an empty log, its LISTEN connection up, its reads counted from now. */
  const listeningSubscriber = async () => {
    await openPair(60_000);
    const collector = new Collector();
    subscription = subscriber.subscribe({ fromPosition: null, onEvents: collector.onEvents, batchSize: 10 });
    await listenerPids();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { collector, reads: jest.spyOn(subscriber, 'readAll') };
  };

  it('when another process appends, then the notification wakes the subscription long before its next poll', async () => {
    await openPair(60_000);
    const collector = new Collector();
    subscription = subscriber.subscribe({ fromPosition: null, onEvents: collector.onEvents });
    await listenerPids();

    const events = [newEvent('A'), newEvent('B')];
    await appender.append('woken', events, 'no_stream');
    await collector.untilSeen(events.map((e) => e.eventId));
  });

  it('when a read returns fewer events than a batch holds, then the subscription waits for the next append instead of reading again', async () => {
    const { collector, reads } = await listeningSubscriber();

    const events = [newEvent('Short'), newEvent('Short')];
    await appender.append('short', events, 'no_stream');
    await collector.untilSeen(events.map((e) => e.eventId));
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Every read is a round trip, made per subscription per append: one that could only find nothing is waste.
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('when the store appends itself, then its subscription reads once: the NOTIFY that follows names a position it already holds', async () => {
    const { collector, reads } = await listeningSubscriber();
    const heard = await db.listenOnce(`railyard_events_${schema}`);

    const events = [newEvent('Own'), newEvent('Own')];
    const { position } = await subscriber.append('own', events, 'no_stream');
    await collector.untilSeen(events.map((e) => e.eventId));
    // The echo has reached this test's own listener; the store's arrived on the same server tick.
    expect(await heard.payload).toBe(String(position));
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('when the store appends itself, then its caught-up subscription gets the batch without reading the log, exactly as a read returns it', async () => {
    await openPair(60_000);
    // No NOTIFY: one arriving late (an echo of an earlier append) would rightly send the subscriber to
    // read; what is tested is the hand-over of this process's own commit, which needs no notification.
    await db.sql(`ALTER TABLE "${schema}".events DISABLE TRIGGER events_appended`);
    const before = [newEvent('Before', { n: 0 })];
    await subscriber.append('tail', before, 'no_stream');
    const collector = new Collector();
    subscription = subscriber.subscribe({ fromPosition: null, onEvents: collector.onEvents, batchSize: 10 });
    await collector.untilSeen(before.map((e) => e.eventId));
    // The LISTEN connection wakes the subscriptions once when it comes up (it may have missed
    // notifications), whenever that is: wait for it, then for an append made after it to be delivered.
    const listener = (subscriber as unknown as { listener: { client: unknown } }).listener;
    for (let i = 0; listener.client === null; i++) {
      if (i > 600) throw new Error('the LISTEN connection never came up');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const settled = [newEvent('Settled')];
    await subscriber.append('tail', settled, 0);
    await collector.untilSeen(settled.map((e) => e.eventId));
    const queries = jest.spyOn(PostgresEventStore.prototype as unknown as { tuples: () => Promise<unknown> }, 'tuples');

    const events = [newEvent('Tail', { list: [1, 'two'], nested: { at: null } }), newEvent('Tail', { u: 'é\u2028' })];
    await subscriber.append('tail', events, 1);
    await collector.untilSeen(events.map((e) => e.eventId));

    expect(queries).not.toHaveBeenCalled();
    queries.mockRestore();
    expect(collector.events).toEqual(await subscriber.readAll(null, 10));
  });

  it('when readers ask for the same page at once, then each gets events of its own', async () => {
    await openPair(60_000);
    await appender.append('shared', [newEvent('Shared', { list: [1] })], 'no_stream');

    const [first, second] = await Promise.all([subscriber.readAll(null, 10), subscriber.readAll(null, 10)]);

    expect(first).toEqual(second);
    expect(first[0]?.data).not.toBe(second[0]?.data);
  });

  it('when the LISTEN connection is killed and events are appended while it is down, then the subscription catches up as it reconnects', async () => {
    await openPair(60_000);
    const collector = new Collector();
    subscription = subscriber.subscribe({ fromPosition: null, onEvents: collector.onEvents });
    const [before] = await listenerPids();

    await db.sql('SELECT pg_terminate_backend($1)', [before]);
    const missed = [newEvent('Missed')];
    await appender.append('missed', missed, 'no_stream');

    // The poll is a minute away: only the reconnect's catch-up can deliver within the test's time.
    await collector.untilSeen(missed.map((e) => e.eventId));
    const after = await listenerPids();
    expect(after).not.toContain(before);
    const later = [newEvent('Later')];
    await appender.append('missed', later, 0);
    await collector.untilSeen(later.map((e) => e.eventId));
    expect(collector.events.map((e) => e.type)).toEqual(['Missed', 'Later']);
  });

  it('when no notification is ever sent, then polling alone delivers every event, in order, once', async () => {
    await openPair(50);
    await db.sql(`ALTER TABLE "${schema}".events DISABLE TRIGGER events_appended`);
    const collector = new Collector();
    subscription = subscriber.subscribe({ fromPosition: null, onEvents: collector.onEvents });

    const appended = [];
    for (let i = 0; i < 5; i++) {
      const events = [newEvent('Polled', { i })];
      await appender.append('polled', events, i === 0 ? 'no_stream' : i - 1);
      appended.push(...events);
    }
    await collector.untilSeen(appended.map((e) => e.eventId));
    expect(collector.events.map((e) => e.eventId)).toEqual(appended.map((e) => e.eventId));
  });

  it('when every connection of both stores is terminated, then appends and the subscription carry on after reconnecting', async () => {
    await openPair(500);
    const collector = new Collector();
    subscription = subscriber.subscribe({ fromPosition: null, onEvents: collector.onEvents });
    const first = [newEvent('First')];
    await appender.append('dropped', first, 'no_stream');
    await collector.untilSeen(first.map((e) => e.eventId));

    await db.sql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'railyard%' AND application_name <> 'railyard-test'",
    );
    const second = [newEvent('Second')];
    // The first use of a pooled connection the server has just ended may fail; a caller retries.
    await appender.append('dropped', second, 0).catch(() => appender.append('dropped', second, 0));

    await collector.untilSeen(second.map((e) => e.eventId));
    expect(collector.events.map((e) => e.type)).toEqual(['First', 'Second']);
  });
});
