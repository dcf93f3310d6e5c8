import { readFileSync } from 'node:fs';
import path from 'node:path';
import { queueIdOf, queueStreamOf, type RepoRef } from '@railyard/domain';
import { MemoryBlobStore, SqliteEventStore } from '@railyard/eventstore';
import { LocalGitHost } from '@railyard/githost';
import { createLogger, PROMETHEUS_CONTENT_TYPE } from '@railyard/observability';
import { runProjector, type ProjectorHandle } from '@railyard/projector';
import { MemoryMetricsStore, MemoryReadModelStore, RedisMetricsStore, type MetricsStore } from '@railyard/readmodels';
import * as readModelTesting from '@railyard/readmodels/testing';
import { metricsTesting } from '@railyard/readmodels/testing';
import { makeTempDir, parseScrape, removeTempDir, type Scrape } from '@railyard/testkit';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp } from '../app';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { QueueCommands } from '../queue-commands';
import { inProcessProjector, ProjectionHealth } from '../readiness/projection-health';
import { metricsRoutes } from './metrics';

const { asNewEvents, deletedQueueHistory, EXPECTED_SCRAPE: X, SCRAPE_MINUTE, scriptedQueueHistory } = metricsTesting;
const { prSubmitted } = readModelTesting;

const READ_TOKEN = 'dashboard-secret-0123456789';
const RAILS: RepoRef = { host: 'github.com', owner: 'acme', name: 'rails' };
const OTHER_REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'other' };
const T0 = Date.UTC(2026, 2, 1, 10, 0);
const t = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const REDIS_URL = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let dir: string;
let clockMs = T0 + SCRAPE_MINUTE * 60_000;
const clock = { now: () => new Date(clockMs) };

interface Harness {
  app: Express;
  eventStore: SqliteEventStore;
  metrics: MetricsStore;
  projectors: ProjectorHandle[];
  close(): Promise<void>;
}

/** A real SQLite store holding the scripted history, projected into `metrics`, behind the real app. */
const harness = async (file: string, metrics: MetricsStore, fill: boolean): Promise<Harness> => {
  const eventStore = new SqliteEventStore({ file: path.join(dir, file), now: clock.now });
  if (fill) {
    const main = queueIdOf(RAILS, 'main');
    const release = queueIdOf(RAILS, 'release/2.x');
    const other = queueIdOf(OTHER_REPO, 'main');
    await eventStore.append(queueStreamOf(main), asNewEvents(scriptedQueueHistory(main, t)), 'no_stream');
    await eventStore.append(queueStreamOf(release), asNewEvents(scriptedQueueHistory(release, t).slice(0, 3)), 'no_stream');
    await eventStore.append(queueStreamOf(other), asNewEvents(scriptedQueueHistory(other, t).slice(0, 2)), 'no_stream');
    const gone = queueIdOf(RAILS, 'gone');
    await eventStore.append(queueStreamOf(gone), asNewEvents(deletedQueueHistory(gone, t)), 'no_stream');
  }
  const logger = createLogger('test');
  const readModels = new MemoryReadModelStore();
  await metrics.reset();
  const projectors = [runProjector({ eventStore, readModels, logger }), runProjector({ eventStore, readModels: metrics, logger })];
  const head = await eventStore.headPosition();
  if (head !== null) {
    expect(await readModels.waitFor(head, 10_000)).toBe(true);
    expect(await metrics.waitFor(head, 10_000)).toBe(true);
  }
  const deps = {
    commands: new QueueCommands(eventStore, readModels, logger, { clock }),
    readModels,
    projection: new ProjectionHealth({ eventStore, readModels, presence: inProcessProjector, maxLagMs: 10_000 }),
    gitHost: new LocalGitHost({ root: path.join(dir, 'git') }),
    blobs: new MemoryBlobStore(),
    tokens: new TokenRegistry(parseTokenList(`dashboard:${READ_TOKEN}:read`)),
    logger,
  };
  const app = buildApp(deps, [metricsRoutes(deps, { metrics, eventStore, projections: { readmodels: readModels, metrics }, clock })]);
  return {
    app,
    eventStore,
    metrics,
    projectors,
    close: async () => {
      await Promise.all(projectors.map((p) => p.stop()));
      await Promise.all([eventStore.close(), readModels.close(), metrics.close(), deps.gitHost.close()]);
    },
  };
};

const scrape = (app: Express, query = '') => request(app).get(`/v1/getMergeQueueMetrics${query}`).set('x-api-token', READ_TOKEN);
const parsed = async (app: Express, query = ''): Promise<Scrape> => {
  const res = await scrape(app, query);
  expect(res.status).toBe(200);
  return parseScrape(res.text);
};
const mqLines = (text: string): string =>
  text
    .split('\n')
    .filter((l) => /^(# (HELP|TYPE) )?(mq_|railyard_(test_runs|ci_runs|innocent|bisections))/.test(l))
    .join('\n');

beforeAll(async () => {
  dir = await makeTempDir('railyard-metrics-route-');
});
afterAll(async () => {
  await removeTempDir(dir);
});

describe('GET /v1/getMergeQueueMetrics over a scripted history, clock injected', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('scripted.sqlite', new MemoryMetricsStore(), true);
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    clockMs = T0 + SCRAPE_MINUTE * 60_000;
  });

  const main = { repo: 'acme/rails', branch: 'main', queue_type: 'main' };
  const bisection = { ...main, queue_type: 'bisection' };

  it('when scraped with a read token, then the answer is Prometheus text with the exact content type', async () => {
    const res = await scrape(h.app);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PROMETHEUS_CONTENT_TYPE);
    const s = await parseScrape(res.text);
    expect(s.type('mq_depth_current')).toBe('gauge');
    expect(s.type('mq_pr_conclusions_1h_total')).toBe('gauge');
    expect(s.type('mq_pr_wait_duration_1h_seconds')).toBe('histogram');
    expect(s.type('railyard_http_request_duration_seconds')).toBe('histogram');
  });

  it('when parsed, then the gauges and rolling counts match the scripted history', async () => {
    const s = await parsed(h.app);
    expect(s.value('mq_depth_current', main)).toBe(X.depth);
    expect(s.value('mq_awaiting_mergeability', main)).toBe(X.awaiting);
    expect(s.value('mq_testing_slots_active', main)).toBe(X.testing.main);
    expect(s.value('mq_testing_slots_active', bisection)).toBe(X.testing.bisection);
    for (const c of ['merged', 'failed', 'cancelled'] as const)
      expect(s.value('mq_pr_conclusions_1h_total', { ...main, conclusion: c })).toBe(X.conclusions[c]);
    expect(s.value('mq_pr_restarts_1h_total', main)).toBe(X.restarts.main);
    expect(s.value('mq_pr_restarts_1h_total', bisection)).toBe(X.restarts.bisection);
  });

  it('when parsed, then every histogram has the published buckets and the scripted observations', async () => {
    const s = await parsed(h.app);
    const buckets = (counts: readonly number[], total: number) =>
      Object.fromEntries([...['60', '300', '600', '900', '1800', '3600', '5400', '7200'].map((le, i) => [le, counts[i]]), ['+Inf', total]]);
    const check = (name: string, labels: Record<string, string>, e: { count: number; sum: number; buckets: readonly number[] }) =>
      expect(s.histogram(name, labels)).toEqual({ buckets: buckets(e.buckets, e.count), sum: e.sum, count: e.count });
    check('mq_pr_wait_duration_1h_seconds', main, X.wait.main);
    check('mq_pr_wait_duration_1h_seconds', bisection, X.wait.bisection);
    check('mq_pr_test_duration_1h_seconds', main, X.test.main);
    check('mq_pr_test_duration_1h_seconds', bisection, X.test.bisection);
    for (const c of ['merged', 'failed', 'cancelled'] as const)
      check('mq_pr_time_in_queue_1h_seconds', { ...main, conclusion: c }, X.timeInQueue[c]);
    for (const [state, e] of Object.entries(X.stateDuration)) {
      const got = s.histogram('mq_pr_state_duration_1h_seconds', { ...main, state });
      expect({ state, count: got.count, sum: got.sum }).toEqual({ state, ...e });
    }
  });

  it('when parsed, then the railyard totals count runs, CI runs per merged PR, innocent ejections and bisections', async () => {
    const s = await parsed(h.app);
    expect(s.value('railyard_test_runs_total', main)).toBe(X.testRuns.main);
    expect(s.value('railyard_test_runs_total', bisection)).toBe(X.testRuns.bisection);
    expect(s.histogram('railyard_ci_runs_per_merged_pr', main)).toMatchObject({
      count: X.ciRunsPerMerged.count,
      sum: X.ciRunsPerMerged.sum,
    });
    expect(s.value('railyard_innocent_ejections_total', main)).toBe(X.innocentEjections);
    expect(s.value('railyard_bisections_total', main)).toBe(X.bisections);
  });

  it('when the clock moves two hours on, then the 1h series are zero and the live gauges are unchanged', async () => {
    clockMs = T0 + (SCRAPE_MINUTE + 120) * 60_000;
    const s = await parsed(h.app);
    for (const c of ['merged', 'failed', 'cancelled']) expect(s.value('mq_pr_conclusions_1h_total', { ...main, conclusion: c })).toBe(0);
    expect(s.value('mq_pr_restarts_1h_total', main)).toBe(0);
    expect(s.histogram('mq_pr_test_duration_1h_seconds', main).count).toBe(0);
    expect(s.value('mq_depth_current', main)).toBe(X.depth);
  });

  it('when no repo is given, then every existing queue of every repository is there and deleted ones are not', async () => {
    const s = await parsed(h.app);
    const queues = s
      .samples('mq_depth_current')
      .map((x) => `${x.labels.repo}@${x.labels.branch}`)
      .sort();
    expect(queues).toEqual(['acme/other@main', 'acme/rails@main', 'acme/rails@release/2.x']);
  });

  it('when repo and repoHost are given, then only that repository is scraped', async () => {
    const s = await parsed(h.app, '?repo=acme/rails&repoHost=github.com');
    expect(
      s
        .samples('mq_depth_current')
        .map((x) => x.labels.branch)
        .sort(),
    ).toEqual(['main', 'release/2.x']);
    const none = await parsed(h.app, '?repo=acme/rails&repoHost=gitlab.com');
    expect(none.samples('mq_depth_current')).toEqual([]);
  });

  it('when repo comes without repoHost, or malformed, then 400 names the field and a later scrape is unchanged', async () => {
    const before = mqLines((await scrape(h.app)).text);
    for (const [query, field] of [
      ['?repo=acme/rails', 'repoHost'],
      ['?repoHost=github.com', 'repo'],
      ['?repo=acme&repoHost=github.com', 'repo'],
      ['?repo=a/b&repo=c/d&repoHost=github.com', 'repo'],
    ] as const) {
      const res = await scrape(h.app, query);
      expect({ query, status: res.status, code: res.body.error?.code, field: res.body.error?.fields?.[0]?.field }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_FAILED',
        field,
      });
    }
    expect(mqLines((await scrape(h.app)).text)).toBe(before);
  });

  it('when the token is missing or unknown, then 401, and a POST is 405', async () => {
    expect((await request(h.app).get('/v1/getMergeQueueMetrics')).status).toBe(401);
    expect((await request(h.app).get('/v1/getMergeQueueMetrics').set('x-api-token', 'not-a-token-of-ours-at-all')).body.error.code).toBe(
      'INVALID_TOKEN',
    );
    const post = await request(h.app).post('/v1/getMergeQueueMetrics').set('x-api-token', READ_TOKEN);
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
  });

  it('when the Grafana dashboard is loaded, then every series it queries is one this endpoint serves', async () => {
    const s = await parsed(h.app);
    const dashboard = readFileSync(path.resolve(__dirname, '../../../../deploy/grafana-dashboard.json'), 'utf8');
    const queried = new Set(
      [...dashboard.matchAll(/\b((?:mq|railyard)_[a-z0-9_]+)/g)].map((m) => (m[1] ?? '').replace(/_(bucket|sum|count)$/, '')),
    );
    expect(queried.size).toBeGreaterThan(10);
    expect([...queried].filter((name) => !s.names().includes(name))).toEqual([]);
  });

  it('when requests were served, then their durations are in the HTTP histogram by method, route template and status', async () => {
    await scrape(h.app);
    await request(h.app).get('/v1/getMergeQueueMetrics');
    await request(h.app).get('/no/such/page');
    const s = await parsed(h.app);
    const count = (labels: Record<string, string>) => s.histogram('railyard_http_request_duration_seconds', labels).count;
    expect(count({ method: 'GET', route: '/v1/getMergeQueueMetrics', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'GET', route: '/v1/getMergeQueueMetrics', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
  });
});

describe('projection lag', () => {
  it('when events are stored but not yet projected, then lag counts them and ages the oldest by the clock', async () => {
    const h = await harness('lag.sqlite', new MemoryMetricsStore(), true);
    try {
      let s = await parsed(h.app);
      expect(s.value('railyard_projection_lag_events', { projection: 'metrics' })).toBe(0);
      expect(s.value('railyard_projection_lag_seconds', { projection: 'readmodels' })).toBe(0);
      await Promise.all(h.projectors.map((p) => p.stop()));
      const q = queueIdOf(OTHER_REPO, 'main');
      await h.eventStore.append(queueStreamOf(q), asNewEvents([prSubmitted(7, t(91)), prSubmitted(8, t(91))]), 'any');
      clockMs += 45_000;
      s = await parsed(h.app);
      expect(s.value('railyard_projection_lag_events', { projection: 'metrics' })).toBe(2);
      expect(s.value('railyard_projection_lag_seconds', { projection: 'metrics' })).toBe(45);
      expect(s.value('railyard_projection_lag_events', { projection: 'readmodels' })).toBe(2);
    } finally {
      await h.close();
    }
  });
});

describe('every replica answers the same', () => {
  it('when the metrics come from Redis, then the merge-queue series equal those from memory', async () => {
    const namespace = `test-metrics-route-${process.pid}`;
    const memory = await harness('replica-a.sqlite', new MemoryMetricsStore(), true);
    const redis = await harness('replica-b.sqlite', new RedisMetricsStore({ redis: REDIS_URL, namespace }), true);
    try {
      expect(mqLines((await scrape(redis.app)).text)).toBe(mqLines((await scrape(memory.app)).text));
    } finally {
      await redis.metrics.reset();
      await Promise.all([memory.close(), redis.close()]);
    }
  });
});
