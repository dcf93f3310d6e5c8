import { queueIdOf } from '@railyard/domain';
import { renderFamilies } from '@railyard/observability';
import { MemoryMetricsStore, queueMetricFamilies, RedisMetricsStore, type MetricsStore } from '@railyard/readmodels';
import * as readModelTesting from '@railyard/readmodels/testing';
import { metricsTesting } from '@railyard/readmodels/testing';
import { dropNamespace } from './support/redis-namespace';
import { positiveIntFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';

/**
 * `npm run bench -- metrics [memory|redis]`: BENCH_QUEUES queues (default 1,000), each with the
 * scripted history of the metrics tests (PRs merged, failed, restarted, bisected) ending now, are
 * projected into the metrics read model; then a full scrape (read every document, compute the 1h
 * series, render the text) is timed BENCH_SCRAPES times.
 */

const progress = (line: string): void => {
  process.stderr.write(`[bench metrics] ${line}\n`);
};
const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

const timed = async (store: MetricsStore, name: string, queues: number, scrapes: number): Promise<object[]> => {
  const { RecordedEventFactory } = readModelTesting;
  const factory = new RecordedEventFactory();
  const end = Date.now();
  const t = (minute: number) => new Date(end - (metricsTesting.SCRAPE_MINUTE - minute) * 60_000).toISOString();
  const events = [];
  for (let q = 0; q < queues; q++) {
    const id = queueIdOf({ host: 'github.com', owner: `org-${q % 50}`, name: `repo-${q}` }, 'main');
    events.push(...factory.record(id, ...metricsTesting.scriptedQueueHistory(id, t)));
  }
  progress(`${name}: projecting ${events.length} events for ${queues} queues`);
  const started = process.hrtime.bigint();
  for (let i = 0; i < events.length; i += 500) await store.apply(events.slice(i, i + 500));
  const projectSeconds = Number(process.hrtime.bigint() - started) / 1e9;

  const samples: number[] = [];
  let bytes = 0;
  let lines = 0;
  for (let i = 0; i < scrapes; i++) {
    const s = process.hrtime.bigint();
    const text = renderFamilies(queueMetricFamilies(await store.queues(), Date.now()));
    samples.push(Number(process.hrtime.bigint() - s) / 1e6);
    bytes = Buffer.byteLength(text);
    lines = text.split('\n').length - 1;
  }
  samples.sort((a, b) => a - b);
  return [
    {
      name: `metrics/${name}/project`,
      queues,
      events: events.length,
      seconds: round3(projectSeconds),
      eventsPerSec: Math.round(events.length / projectSeconds),
    },
    {
      name: `metrics/${name}/scrape`,
      queues,
      scrapes,
      p50Ms: round3(percentile(samples, 50)),
      p99Ms: round3(percentile(samples, 99)),
      bytes,
      lines,
    },
  ];
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const queues = positiveIntFromEnv('BENCH_QUEUES', 1000);
  const scrapes = positiveIntFromEnv('BENCH_SCRAPES', 20);
  const wanted = (target: string) => args.length === 0 || args.includes(target);
  if (wanted('memory')) {
    const store = new MemoryMetricsStore();
    try {
      yield* await timed(store, 'memory', queues, scrapes);
    } finally {
      await store.close();
    }
  }
  if (wanted('redis')) {
    const url = redisUrlFromEnv();
    const namespace = uniqueNamespace('metrics');
    const store = new RedisMetricsStore({ redis: url, namespace });
    try {
      yield* await timed(store, 'redis', queues, scrapes);
    } finally {
      await store.close();
      await dropNamespace(url, namespace);
    }
  }
}
