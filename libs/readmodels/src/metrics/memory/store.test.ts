import type { RecordedEvent } from '@railyard/eventstore';
import { RecordedEventFactory } from '../../testing/recorded';
import { prSubmitted, queueCreated, testQueueId } from '../../testing/fixtures';
import { testRunStarted } from '../../testing/testruns';
import { foldMetricsBatch } from '../projection/batch';
import type { QueueMetricsDoc } from '../projection/model';
import { MemoryMetricsStore } from './store';

const T0 = Date.UTC(2026, 2, 1, 10, 0);
const t = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const Q = testQueueId('main');

const pureFold = (events: RecordedEvent[]): QueueMetricsDoc[] => {
  const docs = new Map<string, QueueMetricsDoc | null>();
  foldMetricsBatch(docs, events);
  return [...docs.values()].filter((d): d is QueueMetricsDoc => d !== null);
};

describe('MemoryMetricsStore (folds in place, docs/decisions.md D121)', () => {
  it('when a batch throws after changing a document, then the store starts over and folding every event again gives the pure fold', async () => {
    const factory = new RecordedEventFactory();
    const [created, first, second, run] = factory.record(
      Q,
      queueCreated(Q, t(0)),
      prSubmitted(1, t(1)),
      prSubmitted(2, t(2)),
      testRunStarted('r1', t(3)),
    );
    if (!created || !first || !second || !run) throw new Error('history');
    const store = new MemoryMetricsStore();
    await store.apply([created, first]);
    // PR 2's submission is folded into the document before the malformed event throws.
    const broken: RecordedEvent = { ...run, data: null };
    await expect(store.apply([second, broken])).rejects.toThrow();
    expect(await store.checkpoint()).toBeNull();
    expect(await store.queues()).toEqual([]);
    await store.apply([created, first, second, run]);
    expect(await store.queues()).toEqual(pureFold([created, first, second, run]));
  });

  it('when batches are folded, then a document read earlier is the same document, moved on', async () => {
    const factory = new RecordedEventFactory();
    const store = new MemoryMetricsStore();
    await store.apply(factory.record(Q, queueCreated(Q, t(0)), prSubmitted(1, t(1))));
    const [before] = await store.queues();
    await store.apply(factory.record(Q, prSubmitted(2, t(2))));
    const [after] = await store.queues();
    expect(after).toBe(before);
    expect(Object.keys(after?.entries ?? {})).toEqual(['1', '2']);
  });
});
