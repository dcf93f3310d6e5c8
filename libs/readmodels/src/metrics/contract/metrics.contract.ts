import type { RecordedEvent } from '@railyard/eventstore';
import { RecordedEventFactory } from '../../testing/recorded';
import { queueCreated, testQueueId } from '../../testing/fixtures';
import { foldMetricsBatch } from '../projection/batch';
import { deletedQueueHistory, scriptedQueueHistory } from '../../testing/metrics';
import type { QueueMetricsDoc } from '../projection/model';
import type { MetricsStore } from '../port';
import { freshStoreEach } from '../../testing/fresh-store';

const T0 = Date.UTC(2026, 2, 1, 10, 0);
const t = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const Q = testQueueId('main');
const RELEASE = testQueueId('release/2.x@rc');
const GONE = testQueueId('gone');

const history = (): RecordedEvent[] => {
  const factory = new RecordedEventFactory(10n, 3n);
  return [
    ...factory.record(Q, ...scriptedQueueHistory(Q, t)),
    ...factory.record(RELEASE, ...scriptedQueueHistory(RELEASE, t).slice(0, 20)),
    ...factory.record(GONE, ...deletedQueueHistory(GONE, t)),
  ];
};

/** The pure fold of the whole history: what every adapter must end up holding. */
const expected = (events: RecordedEvent[]): QueueMetricsDoc[] => {
  const docs = new Map<string, QueueMetricsDoc | null>();
  foldMetricsBatch(docs, events);
  return [...docs.values()].filter((d): d is QueueMetricsDoc => d !== null);
};

const byId = (docs: QueueMetricsDoc[]): QueueMetricsDoc[] => [...docs].sort((a, b) => a.queueId.localeCompare(b.queueId));

/** What every MetricsStore adapter must do; `make` returns a store on an isolated namespace. */
export const metricsStoreContract = (name: string, make: () => MetricsStore | Promise<MetricsStore>): void => {
  describe(`MetricsStore contract: ${name}`, () => {
    let store: MetricsStore;
    freshStoreEach(make, (s) => (store = s));

    it('when a history is applied in batches, then the documents equal the pure fold and deleted queues are gone', async () => {
      const events = history();
      for (let i = 0; i < events.length; i += 9) await store.apply(events.slice(i, i + 9));
      expect(byId(await store.queues())).toEqual(byId(expected(events)));
      expect((await store.queues()).map((d) => d.queueId)).not.toContain(GONE);
      expect(await store.checkpoint()).toBe(events[events.length - 1]?.position);
    });

    it('when batches overlap or repeat, then every event is folded once', async () => {
      const events = history();
      await store.apply(events.slice(0, 30));
      await store.apply(events.slice(10, 60));
      await store.apply(events.slice(0, 60));
      await store.apply(events);
      expect(byId(await store.queues())).toEqual(byId(expected(events)));
    });

    it('when asked for one repository, then only its queues come back', async () => {
      await store.apply(history());
      expect((await store.queues({ host: 'github.com', owner: 'acme', name: 'rails' })).map((d) => d.branch).sort()).toEqual([
        'main',
        'release/2.x@rc',
      ]);
      expect(await store.queues({ host: 'github.com', owner: 'acme', name: 'other' })).toEqual([]);
    });

    it('when waiting for a position, then it resolves once applied and false on timeout', async () => {
      const events = history();
      const last = events[events.length - 1]?.position ?? 0n;
      expect(await store.waitFor(last, 20)).toBe(false);
      const waiting = store.waitFor(last, 5000);
      await store.apply(events);
      expect(await waiting).toBe(true);
    });

    it('when reset, then no document and no checkpoint are left, and a rebuild gives the same documents', async () => {
      const events = history();
      await store.apply(events);
      await store.reset();
      expect(await store.queues()).toEqual([]);
      expect(await store.checkpoint()).toBeNull();
      await store.apply(events);
      expect(byId(await store.queues())).toEqual(byId(expected(events)));
    });

    it('when a deleted queue is created again, then it is listed with a fresh document', async () => {
      const factory = new RecordedEventFactory();
      await store.apply(factory.record(GONE, ...deletedQueueHistory(GONE, t)));
      await store.apply(factory.record(GONE, queueCreated(GONE, t(20))));
      const docs = await store.queues();
      expect(docs.map((d) => d.queueId)).toEqual([GONE]);
      expect(docs[0]?.log).toEqual([]);
    });
  });
};
