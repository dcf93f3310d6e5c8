import { queueIdOf } from '@railyard/domain';
import type { MetricFamily } from '@railyard/observability';
import { RecordedEventFactory } from '../testing/recorded';
import { testQueueId } from '../testing/fixtures';
import { queueCreated } from '../testing/fixtures';
import { deletedQueueHistory, EXPECTED_SCRAPE as X, SCRAPE_MINUTE, scriptedQueueHistory } from '../testing/metrics';
import { MemoryMetricsStore } from './memory/store';
import { DURATION_BUCKETS } from './projection/model';
import { queueMetricFamilies } from './series';

const T0 = Date.UTC(2026, 2, 1, 10, 0);
const t = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const NOW = T0 + SCRAPE_MINUTE * 60_000;
const Q = testQueueId('main');
const OTHER = testQueueId('release/1.x');

const find = (families: MetricFamily[], name: string): MetricFamily => {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
};
const value = (families: MetricFamily[], name: string, labels: Record<string, string>): number => {
  const f = find(families, name);
  if (f.type === 'histogram') throw new Error(`${name} is a histogram`);
  const hits = f.samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length !== 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${hits.length} samples`);
  return hits[0]?.value ?? NaN;
};
const hist = (families: MetricFamily[], name: string, labels: Record<string, string>) => {
  const f = find(families, name);
  if (f.type !== 'histogram') throw new Error(`${name} is not a histogram`);
  const hits = f.samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length !== 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${hits.length} samples`);
  const h = hits[0] as { cumulative: readonly number[]; sum: number; count: number };
  return { buckets: [...h.cumulative], sum: h.sum, count: h.count };
};

const storeWith = async (batchSize: number): Promise<MemoryMetricsStore> => {
  const factory = new RecordedEventFactory(1n, 2n);
  const events = [...factory.record(Q, ...scriptedQueueHistory(Q, t)), ...factory.record(OTHER, ...deletedQueueHistory(OTHER, t))];
  const store = new MemoryMetricsStore();
  for (let i = 0; i < events.length; i += batchSize) await store.apply(events.slice(i, i + batchSize));
  return store;
};

describe('metrics read model: the scripted queue history scraped at minute 90', () => {
  let families: MetricFamily[];
  const main = { queue_type: 'main' };
  const bisection = { queue_type: 'bisection' };

  beforeAll(async () => {
    families = queueMetricFamilies(await (await storeWith(7)).queues(), NOW);
  });

  it('when PRs are live, then depth counts the admitted ones and awaiting mergeability the rest', () => {
    expect(value(families, 'mq_depth_current', main)).toBe(X.depth);
    expect(value(families, 'mq_awaiting_mergeability', main)).toBe(X.awaiting);
  });

  it('when a bisection run is in flight, then its PR counts as a bisection testing slot', () => {
    expect(value(families, 'mq_testing_slots_active', main)).toBe(X.testing.main);
    expect(value(families, 'mq_testing_slots_active', bisection)).toBe(X.testing.bisection);
  });

  it('when PRs left the queue, then the last hour counts each conclusion and older exits are left out', () => {
    for (const c of ['merged', 'failed', 'cancelled'] as const)
      expect(value(families, 'mq_pr_conclusions_1h_total', { ...main, conclusion: c })).toBe(X.conclusions[c]);
  });

  it('when PRs under test went back to pending, then the last hour counts the restarts', () => {
    expect(value(families, 'mq_pr_restarts_1h_total', main)).toBe(X.restarts.main);
    expect(value(families, 'mq_pr_restarts_1h_total', bisection)).toBe(X.restarts.bisection);
  });

  it('when tests started and ended, then wait and test durations fill the published buckets per queue type', () => {
    expect(hist(families, 'mq_pr_wait_duration_1h_seconds', main)).toEqual({
      buckets: X.wait.main.buckets,
      sum: X.wait.main.sum,
      count: X.wait.main.count,
    });
    expect(hist(families, 'mq_pr_wait_duration_1h_seconds', bisection)).toEqual({
      buckets: X.wait.bisection.buckets,
      sum: X.wait.bisection.sum,
      count: X.wait.bisection.count,
    });
    expect(hist(families, 'mq_pr_test_duration_1h_seconds', main)).toEqual({
      buckets: X.test.main.buckets,
      sum: X.test.main.sum,
      count: X.test.main.count,
    });
    expect(hist(families, 'mq_pr_test_duration_1h_seconds', bisection)).toEqual({
      buckets: X.test.bisection.buckets,
      sum: X.test.bisection.sum,
      count: X.test.bisection.count,
    });
  });

  it('when PRs left the queue, then time in queue runs from admission to exit, by conclusion', () => {
    for (const c of ['merged', 'failed', 'cancelled'] as const) {
      const e = X.timeInQueue[c];
      expect(hist(families, 'mq_pr_time_in_queue_1h_seconds', { ...main, conclusion: c })).toEqual({
        buckets: e.buckets,
        sum: e.sum,
        count: e.count,
      });
    }
  });

  it('when entries changed state, then each state left in the last hour has its duration observed', () => {
    for (const [state, e] of Object.entries(X.stateDuration)) {
      const h = hist(families, 'mq_pr_state_duration_1h_seconds', { ...main, state });
      expect({ state, count: h.count, sum: h.sum }).toEqual({ state, count: e.count, sum: e.sum });
    }
  });

  it('when runs, merges and failures happened, then the railyard totals count them since the queue was created', () => {
    expect(value(families, 'railyard_test_runs_total', main)).toBe(X.testRuns.main);
    expect(value(families, 'railyard_test_runs_total', bisection)).toBe(X.testRuns.bisection);
    expect(hist(families, 'railyard_ci_runs_per_merged_pr', main)).toEqual({
      buckets: X.ciRunsPerMerged.buckets,
      sum: X.ciRunsPerMerged.sum,
      count: X.ciRunsPerMerged.count,
    });
    expect(value(families, 'railyard_innocent_ejections_total', main)).toBe(X.innocentEjections);
    expect(value(families, 'railyard_bisections_total', main)).toBe(X.bisections);
  });

  it('when a queue was deleted, then it has no series at all', () => {
    for (const f of families) expect(f.samples.every((s) => s.labels.branch === 'main')).toBe(true);
  });

  it('when every series is labelled, then repo is owner/name, repo_host its host, and the histograms use the published buckets', () => {
    expect(find(families, 'mq_depth_current').samples[0]?.labels).toEqual({
      repo: 'acme/rails',
      repo_host: 'github.com',
      branch: 'main',
      queue_type: 'main',
    });
    for (const name of [
      'mq_pr_wait_duration_1h_seconds',
      'mq_pr_test_duration_1h_seconds',
      'mq_pr_time_in_queue_1h_seconds',
      'mq_pr_state_duration_1h_seconds',
    ]) {
      const f = find(families, name);
      expect(f.type === 'histogram' && [...f.bounds]).toEqual([...DURATION_BUCKETS]);
    }
  });
});

describe('metrics read model: folding', () => {
  it('when the same history is applied in batches of any size, then the documents are the same', async () => {
    const one = await (await storeWith(1)).queues();
    for (const size of [3, 50, 1000]) expect(await (await storeWith(size)).queues()).toEqual(one);
  });

  it('when a batch is applied twice, then nothing is counted twice', async () => {
    const factory = new RecordedEventFactory();
    const events = factory.record(Q, ...scriptedQueueHistory(Q, t));
    const store = new MemoryMetricsStore();
    await store.apply(events);
    const once = structuredClone(await store.queues());
    await store.apply(events);
    await store.apply(events.slice(10, 20));
    expect(await store.queues()).toEqual(once);
    expect(await store.checkpoint()).toBe(events[events.length - 1]?.position);
  });

  it('when the clock moves past the window, then the 1h series drop to zero and the gauges stay', async () => {
    const families = queueMetricFamilies(await (await storeWith(100)).queues(), NOW + 2 * 60 * 60_000);
    expect(value(families, 'mq_pr_conclusions_1h_total', { conclusion: 'merged' })).toBe(0);
    expect(hist(families, 'mq_pr_wait_duration_1h_seconds', { queue_type: 'main' }).count).toBe(0);
    expect(value(families, 'mq_depth_current', {})).toBe(X.depth);
    expect(value(families, 'railyard_innocent_ejections_total', {})).toBe(X.innocentEjections);
  });

  it('when the log holds records older than an hour before the newest event, then they are pruned', async () => {
    const doc = (await (await storeWith(100)).queues())[0];
    const oldest = Math.min(...(doc?.log ?? []).map((r) => r[0]));
    expect(oldest).toBeGreaterThanOrEqual(Date.parse(t(88)) - 60 * 60_000);
  });

  it('when a queue is re-created after deletion, then it starts from zero', async () => {
    const factory = new RecordedEventFactory();
    const store = new MemoryMetricsStore();
    await store.apply(factory.record(OTHER, ...deletedQueueHistory(OTHER, t)));
    expect(await store.queues()).toEqual([]);
    await store.apply(factory.record(OTHER, queueCreated(OTHER, t(10))));
    const families = queueMetricFamilies(await store.queues(), NOW);
    expect(value(families, 'mq_pr_conclusions_1h_total', { conclusion: 'cancelled' })).toBe(0);
  });

  it('when two hosts have a repository of the same owner/name, then no two series share their labels', async () => {
    const factory = new RecordedEventFactory();
    const store = new MemoryMetricsStore();
    const onA = queueIdOf({ host: 'hosta.test', owner: 'dup', name: 'repo' }, 'main');
    const onB = queueIdOf({ host: 'hostb.test', owner: 'dup', name: 'repo' }, 'main');
    await store.apply([...factory.record(onA, queueCreated(onA, t(1))), ...factory.record(onB, queueCreated(onB, t(2)))]);
    for (const f of queueMetricFamilies(await store.queues(), NOW)) {
      const keys = f.samples.map((s) => JSON.stringify(Object.entries(s.labels).sort()));
      expect(new Set(keys).size).toBe(keys.length);
      expect(new Set(f.samples.map((s) => s.labels.repo_host))).toEqual(new Set(['hosta.test', 'hostb.test']));
    }
  });

  it('when asked for one repository, then only its queues are listed', async () => {
    const store = await storeWith(100);
    expect((await store.queues({ host: 'github.com', owner: 'acme', name: 'rails' })).map((d) => d.branch)).toEqual(['main']);
    expect(await store.queues({ host: 'gitlab.com', owner: 'acme', name: 'rails' })).toEqual([]);
  });
});
