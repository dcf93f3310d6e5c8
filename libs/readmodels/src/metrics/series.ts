import { repoSlug } from '@railyard/domain';
import { histogramOf, type HistogramSample, type Labels, type MetricFamily, type ValueSample } from '@railyard/observability';
import {
  CI_RUN_BUCKETS,
  FLAKE_RETRY_BUCKETS,
  CONCLUSIONS,
  DURATION_BUCKETS,
  LIVE_STATES,
  METRICS_WINDOW_MS,
  QUEUE_TYPES,
  type LogKind,
  type QueueMetricsDoc,
  type QueueType,
} from './projection/model';

/**
 * `repo` is `owner/name` as Trunk's series have it; `repo_host` keeps two hosts' same-named
 * repositories apart, so every queue's series are unique (docs/metrics.md).
 */
const labelsOf = (doc: QueueMetricsDoc, queueType: QueueType, extra: Record<string, string> = {}): Labels => ({
  repo: repoSlug(doc.repo),
  repo_host: doc.repo.host,
  branch: doc.branch,
  queue_type: queueType,
  ...extra,
});

/** The window's records of one kind, grouped by label. */
const windowOf = (doc: QueueMetricsDoc, nowMs: number): Map<string, number[]> => {
  const horizon = nowMs - METRICS_WINDOW_MS;
  const grouped = new Map<string, number[]>();
  for (const [at, kind, label, seconds] of doc.log) {
    if (at <= horizon) continue;
    const key = `${kind}:${label}`;
    const list = grouped.get(key);
    if (list) list.push(seconds);
    else grouped.set(key, [seconds]);
  }
  return grouped;
};

interface QueueWindow {
  doc: QueueMetricsDoc;
  records: Map<string, number[]>;
}

const of = (w: QueueWindow, kind: LogKind, label: string): number[] => w.records.get(`${kind}:${label}`) ?? [];

const gauge = (name: string, help: string, samples: ValueSample[]): MetricFamily => ({ name, help, type: 'gauge', samples });
const counter = (name: string, help: string, samples: ValueSample[]): MetricFamily => ({ name, help, type: 'counter', samples });
const histogram = (name: string, help: string, bounds: readonly number[], samples: HistogramSample[]): MetricFamily => ({
  name,
  help,
  type: 'histogram',
  bounds,
  samples,
});

const countEntries = (doc: QueueMetricsDoc, test: (state: string, queueType: QueueType) => boolean): number =>
  Object.values(doc.entries).filter((e) => test(e.state, e.queueType)).length;

/**
 * The merge-queue series (names, labels and buckets as Trunk publishes them)
 * and the per-queue railyard_* series, computed from the documents for the hour before `nowMs`.
 * Depth, awaiting mergeability, conclusions, time in queue and state durations describe PRs, so
 * they carry queue_type="main" only; testing slots, restarts, waits and test durations describe
 * test runs and are split into main and bisection.
 */
export const queueMetricFamilies = (docs: readonly QueueMetricsDoc[], nowMs: number): MetricFamily[] => {
  const queues: QueueWindow[] = [...docs]
    .sort(
      (a, b) =>
        a.repo.host.localeCompare(b.repo.host) ||
        a.repo.owner.localeCompare(b.repo.owner) ||
        a.repo.name.localeCompare(b.repo.name) ||
        a.branch.localeCompare(b.branch),
    )
    .map((doc) => ({ doc, records: windowOf(doc, nowMs) }));
  const perType = <T>(make: (w: QueueWindow, t: QueueType) => T): T[] => queues.flatMap((w) => QUEUE_TYPES.map((t) => make(w, t)));
  const main = <T>(make: (w: QueueWindow) => T[]): T[] => queues.flatMap(make);

  return [
    gauge(
      'mq_depth_current',
      'PRs admitted to the queue that have not merged, failed or been cancelled yet (PRs awaiting mergeability excluded).',
      main((w) => [{ labels: labelsOf(w.doc, 'main'), value: countEntries(w.doc, (s) => s !== 'not_ready') }]),
    ),
    gauge(
      'mq_awaiting_mergeability',
      'PRs submitted but not admitted yet, waiting for the host to report them mergeable.',
      main((w) => [{ labels: labelsOf(w.doc, 'main'), value: countEntries(w.doc, (s) => s === 'not_ready') }]),
    ),
    gauge(
      'mq_testing_slots_active',
      'PRs whose test run is in flight.',
      perType((w, t) => ({ labels: labelsOf(w.doc, t), value: countEntries(w.doc, (s, q) => s === 'testing' && q === t) })),
    ),
    gauge(
      'mq_pr_conclusions_1h_total',
      'PRs that left the queue during the last hour, by conclusion.',
      main((w) => CONCLUSIONS.map((c) => ({ labels: labelsOf(w.doc, 'main', { conclusion: c }), value: of(w, 'c', c).length }))),
    ),
    gauge(
      'mq_pr_restarts_1h_total',
      'Times during the last hour a PR under test (testing, tests passed, pending failure) went back to pending.',
      perType((w, t) => ({ labels: labelsOf(w.doc, t), value: of(w, 'r', t).length })),
    ),
    histogram(
      'mq_pr_wait_duration_1h_seconds',
      'Seconds from admission (pending) until testing started, for test starts in the last hour.',
      DURATION_BUCKETS,
      perType((w, t) => histogramOf(labelsOf(w.doc, t), DURATION_BUCKETS, of(w, 'w', t))),
    ),
    histogram(
      'mq_pr_test_duration_1h_seconds',
      'Seconds PRs spent in testing, for tests that ended in the last hour.',
      DURATION_BUCKETS,
      perType((w, t) => histogramOf(labelsOf(w.doc, t), DURATION_BUCKETS, of(w, 't', t))),
    ),
    histogram(
      'mq_pr_time_in_queue_1h_seconds',
      'Seconds from admission to leaving the queue, for PRs that left in the last hour, by conclusion.',
      DURATION_BUCKETS,
      main((w) => CONCLUSIONS.map((c) => histogramOf(labelsOf(w.doc, 'main', { conclusion: c }), DURATION_BUCKETS, of(w, 'q', c)))),
    ),
    histogram(
      'mq_pr_state_duration_1h_seconds',
      'Seconds PRs spent in each state, for state changes in the last hour.',
      DURATION_BUCKETS,
      main((w) => LIVE_STATES.map((s) => histogramOf(labelsOf(w.doc, 'main', { state: s }), DURATION_BUCKETS, of(w, 's', s)))),
    ),
    counter(
      'railyard_test_runs_total',
      'Test runs started since the queue was created, by kind (bisection runs split a failed batch).',
      perType((w, t) => ({ labels: labelsOf(w.doc, t), value: w.doc.totals.testRuns[t] })),
    ),
    histogram(
      'railyard_ci_runs_per_merged_pr',
      'Test runs that tested each merged PR during the submission that merged it (0: merged directly).',
      CI_RUN_BUCKETS,
      main((w) => {
        const h = w.doc.totals.ciRunsPerMerged;
        return [{ labels: labelsOf(w.doc, 'main'), cumulative: h.cumulative, sum: h.sum, count: h.count }];
      }),
    ),
    counter(
      'railyard_innocent_ejections_total',
      'Failures of a PR whose later re-submission merged with the same head commit.',
      main((w) => [{ labels: labelsOf(w.doc, 'main'), value: w.doc.totals.innocentEjections }]),
    ),
    counter(
      'railyard_flake_retries_total',
      'Failed runs re-run on the same commit because the failure may be a flake (flakeRetries), since the queue was created.',
      main((w) => [{ labels: labelsOf(w.doc, 'main'), value: w.doc.totals.flakeRetries ?? 0 }]),
    ),
    histogram(
      'railyard_flake_retries_per_merged_pr',
      'Flake re-runs each merged PR took during the submission that merged it.',
      FLAKE_RETRY_BUCKETS,
      main((w) => {
        const h = w.doc.totals.flakeRetriesPerMerged ?? { cumulative: FLAKE_RETRY_BUCKETS.map(() => 0), sum: 0, count: 0 };
        return [{ labels: labelsOf(w.doc, 'main'), cumulative: h.cumulative, sum: h.sum, count: h.count }];
      }),
    ),
    counter(
      'railyard_bisections_total',
      'Failed batches split into smaller runs to find the culprit.',
      main((w) => [{ labels: labelsOf(w.doc, 'main'), value: w.doc.totals.bisections }]),
    ),
  ];
};
