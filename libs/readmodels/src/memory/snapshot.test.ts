import { deserialize, serialize } from 'node:v8';
import { queueStreamOf, QUEUE_EVENT_SCHEMA_VERSION } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { MemoryMetricsStore } from '../metrics/memory/store';
import { MemoryReadModelStore } from '../queue/memory/store';
import { StreamRecorder } from '../testing/recorded';
import { testQueueId } from '../testing/fixtures';
import { scriptedQueueHistory } from '../testing/metrics';
import type { Snapshottable } from './snapshot';

const queueId = testQueueId();
const t = (minute: number): string => new Date(Date.UTC(2025, 0, 6, 9, minute)).toISOString();
const history = (): RecordedEvent[] =>
  new StreamRecorder(QUEUE_EVENT_SCHEMA_VERSION, 'ci', 1n, 3n).recordOn(queueStreamOf(queueId), ...scriptedQueueHistory(queueId, t));

/** A store fed the first `cut` events, saved, restored into a new one as a later start would, which then folds every event. */
const resumed = async <S extends Snapshottable & { apply(e: RecordedEvent[]): Promise<void> }>(open: () => S, cut: number): Promise<S> => {
  const events = history();
  const before = open();
  await before.apply(events.slice(0, cut));
  const snap = before.snapshot();
  if (!snap) throw new Error('no snapshot of a store that folded events');
  const after = open();
  after.restore(snap.position, deserialize(serialize(snap.body)));
  await after.apply(events);
  return after;
};

const whole = async <S extends { apply(e: RecordedEvent[]): Promise<void> }>(open: () => S): Promise<S> => {
  const store = open();
  await store.apply(history());
  return store;
};

describe('snapshots of the in-memory read models', () => {
  it('when the queue models are restored from a snapshot and fold the rest, then they answer as the models that folded everything', async () => {
    const cut = Math.floor(history().length / 2);
    const expected = await whole(() => new MemoryReadModelStore());
    const actual = await resumed(() => new MemoryReadModelStore(), cut);
    expect(await actual.checkpoint()).toBe(await expected.checkpoint());
    expect((await expected.listPrs(queueId, { take: 100 })).prs.length).toBeGreaterThan(1);
    expect(await actual.getQueueAnswer(queueId)).toBe(await expected.getQueueAnswer(queueId));
    expect(await actual.listPrs(queueId, { take: 100 })).toEqual(await expected.listPrs(queueId, { take: 100 }));
    for (const pr of (await expected.listPrs(queueId, { take: 100 })).prs)
      expect(await actual.getPrAnswer(queueId, pr.prNumber)).toBe(await expected.getPrAnswer(queueId, pr.prNumber));
  });

  it('when the metrics are restored from a snapshot and fold the rest, then they equal the metrics that folded everything', async () => {
    const cut = Math.floor(history().length / 3);
    const expected = await whole(() => new MemoryMetricsStore());
    const actual = await resumed(() => new MemoryMetricsStore(), cut);
    expect(await expected.queues()).toHaveLength(1);
    expect(await actual.queues()).toEqual(await expected.queues());
  });

  it('when a store has folded nothing, then it has no snapshot to give', () => {
    expect(new MemoryReadModelStore().snapshot()).toBeNull();
    expect(new MemoryMetricsStore().snapshot()).toBeNull();
  });
});
