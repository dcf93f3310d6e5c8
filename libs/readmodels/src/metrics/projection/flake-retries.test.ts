import type { MetricFamily } from '@railyard/observability';
import type { QueueEvent } from '@railyard/domain';
import { RecordedEventFactory } from '../../testing/recorded';
import { prSubmitted, queueCreated, testQueueId } from '../../testing/fixtures';
import { runFailed, runSucceeded, testRunStarted } from '../../testing/testruns';
import { MemoryMetricsStore } from '../memory/store';
import { queueMetricFamilies } from '../series';

const T0 = Date.UTC(2026, 2, 1, 10, 0);
const t = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const Q = testQueueId('main');

/** PR 1 fails, is re-run on the same commit (flakeRetries) and merges; PR 2 passes at once and merges. */
const history = (): QueueEvent[] => [
  queueCreated(Q, t(0)),
  prSubmitted(1, t(1)),
  prSubmitted(2, t(1)),
  testRunStarted('r1', t(2)),
  { type: 'PrTestingStarted', data: { prNumber: 1, testRunId: 'r1', at: t(2) } },
  runFailed('r1', t(10)),
  { type: 'PrPendingFailure', data: { prNumber: 1, testRunId: 'r1', failedContexts: ['build'], at: t(10) } },
  { type: 'TestsRestarted', data: { prNumber: 1, reason: 'FLAKE_RETRY', at: t(11) } },
  testRunStarted('r1b', t(11), {
    testBranch: 'railyard-merge/pr-1/r1',
    testBranchSha: 'test-sha-r1',
    retry: { of: 'r1', attempt: 1, cause: 'NO_TEST_RESULTS', contexts: ['build'], detail: 'no test results' },
  }),
  { type: 'PrTestingStarted', data: { prNumber: 1, testRunId: 'r1b', at: t(11) } },
  runSucceeded('r1b', t(20)),
  { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'r1b', reason: 'FLAKE_RETRIED', at: t(20) } },
  { type: 'PrMerged', data: { prNumber: 1, mergeSha: 'm1', testRunId: 'r1b', reason: 'MERGE_GRAPH_MERGE', at: t(21) } },
  testRunStarted('r2', t(21), { prNumbers: [2] }),
  { type: 'PrTestingStarted', data: { prNumber: 2, testRunId: 'r2', at: t(21) } },
  runSucceeded('r2', t(30)),
  { type: 'PrTestsPassed', data: { prNumber: 2, testRunId: 'r2', reason: 'TEST_RUN_PASSED', at: t(30) } },
  { type: 'PrMerged', data: { prNumber: 2, mergeSha: 'm2', testRunId: 'r2', reason: 'MERGE_GRAPH_MERGE', at: t(31) } },
];

const find = (families: MetricFamily[], name: string): MetricFamily => {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
};

describe('metrics read model: flake re-runs', () => {
  let families: MetricFamily[];

  beforeAll(async () => {
    const store = new MemoryMetricsStore();
    await store.apply(new RecordedEventFactory(1n, 2n).record(Q, ...history()));
    families = queueMetricFamilies(await store.queues(), T0 + 40 * 60_000);
  });

  it('when a failed run was re-run on the same commit, then railyard_flake_retries_total counts it', () => {
    const f = find(families, 'railyard_flake_retries_total');
    expect(f.samples.map((s) => (s as { value: number }).value)).toEqual([1]);
  });

  it('when PRs merged with and without a re-run, then the per-merged-PR histogram observes 1 and 0', () => {
    const f = find(families, 'railyard_flake_retries_per_merged_pr');
    const h = f.samples[0] as { cumulative: readonly number[]; sum: number; count: number };
    expect({ buckets: [...h.cumulative], sum: h.sum, count: h.count }).toEqual({ buckets: [1, 2, 2, 2], sum: 1, count: 2 });
  });

  it('when the re-run started, then it counts as a test run the merged PR took', () => {
    const f = find(families, 'railyard_ci_runs_per_merged_pr');
    const h = f.samples[0] as { sum: number; count: number };
    expect({ sum: h.sum, count: h.count }).toEqual({ sum: 3, count: 2 });
  });
});
