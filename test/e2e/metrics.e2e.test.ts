import path from 'node:path';
import { queueIdOf, queueStreamOf } from '@railyard/domain';
import { SqliteEventStore } from '@railyard/eventstore';
import { PROMETHEUS_CONTENT_TYPE } from '@railyard/observability';
import { metricsTesting } from '@railyard/readmodels/testing';
import { parseScrape, type Scrape } from '@railyard/testkit';
import request from 'supertest';
import { client, REPO } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { dropNamespace, REDIS_URL, uniqueNamespace } from './support/redis';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);

const { asNewEvents, EXPECTED_SCRAPE: X, SCRAPE_MINUTE, scriptedQueueHistory } = metricsTesting;
const SLUG = `${REPO.owner}/${REPO.name}`;

const scrape = (url: string, query = '', token = TOKENS.read) =>
  request(url).get(`/v1/getMergeQueueMetrics${query}`).set('x-api-token', token);
const parsed = async (url: string, query = ''): Promise<Scrape> => {
  const res = await scrape(url, query);
  expect(res.status).toBe(200);
  return parseScrape(res.text);
};
/** The branches that have a queue-depth series, sorted. */
const depthBranches = (s: Scrape): string[] =>
  s
    .samples('mq_depth_current')
    .map((x) => x.labels.branch as string)
    .sort();
/** The projected series only: process-local ones (HTTP latencies) differ between replicas by design. */
const projectedLines = (text: string): string =>
  text
    .split('\n')
    .filter((l) => /^(# (HELP|TYPE) )?(mq_|railyard_(test_runs|ci_runs|innocent|bisections))/.test(l))
    .join('\n');

const eventually = async <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> => {
  let last: T | undefined;
  for (let i = 0; i < 200; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} never happened; last seen ${JSON.stringify(last)}`);
};

describe('the embedded server', () => {
  let world: World;
  let server: RunningProcess;

  beforeAll(async () => {
    world = await makeWorld();
    for (const n of [1, 2, 3]) await world.openFeaturePr(n);
    await world.openConflictingPr(6);
    server = await startProcess('apps/server/src/main.ts', world.env);
    const admin = client(server.url, TOKENS.admin);
    const ci = client(server.url, TOKENS.write);
    // Paused, so the numbers are exactly what these requests made.
    expect((await admin.createQueue({ state: 'paused' })).status).toBe(200);
    expect((await admin.createQueue({ state: 'paused' }, 'release')).status).toBe(200);
    for (const n of [1, 2, 3]) expect((await ci.submit(n)).body.state).toBe('pending');
    expect((await ci.submit(6)).body.state).toBe('not_ready');
    expect((await ci.cancel(3)).status).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    await world?.cleanup();
  });

  const main = { repo: SLUG, branch: 'main', queue_type: 'main' };

  it('when scraped with a read token, then it is Prometheus text with the exact content type and the queue as it is', async () => {
    const res = await scrape(server.url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PROMETHEUS_CONTENT_TYPE);
    const s = await parseScrape(res.text);
    expect(s.value('mq_depth_current', main)).toBe(2);
    expect(s.value('mq_awaiting_mergeability', main)).toBe(1);
    expect(s.value('mq_testing_slots_active', main)).toBe(0);
    expect(s.value('mq_pr_conclusions_1h_total', { ...main, conclusion: 'cancelled' })).toBe(1);
    expect(s.value('mq_pr_conclusions_1h_total', { ...main, conclusion: 'merged' })).toBe(0);
    expect(s.histogram('mq_pr_time_in_queue_1h_seconds', { ...main, conclusion: 'cancelled' }).count).toBe(1);
    expect(s.value('mq_depth_current', { ...main, branch: 'release' })).toBe(0);
  });

  it('when requests were served, then the HTTP histogram has them by route template and status', async () => {
    const s = await parsed(server.url);
    expect(
      s.histogram('railyard_http_request_duration_seconds', { method: 'POST', route: '/v1/submitPullRequest', status: '200' }).count,
    ).toBeGreaterThanOrEqual(4);
    expect(s.histogram('railyard_http_request_duration_seconds', { method: 'POST', route: '/v1/createQueue', status: '200' }).count).toBe(
      2,
    );
  });

  it('when the projections are caught up, then their lag is zero', async () => {
    const s = await parsed(server.url);
    expect(s.value('railyard_projection_lag_events', { projection: 'metrics' })).toBe(0);
    expect(s.value('railyard_projection_lag_events', { projection: 'readmodels' })).toBe(0);
  });

  it('when narrowed to the repository, then both queues are there; to another repository, none', async () => {
    const mine = await parsed(server.url, `?repo=${SLUG}&repoHost=${REPO.host}`);
    expect(depthBranches(mine)).toEqual(['main', 'release']);
    const other = await parsed(server.url, `?repo=acme/other&repoHost=${REPO.host}`);
    expect(other.samples('mq_depth_current')).toEqual([]);
  });

  it('when repo comes without repoHost, then 400 JSON; without a token, 401', async () => {
    const bad = await scrape(server.url, `?repo=${SLUG}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'repoHost' }] });
    expect((await request(server.url).get('/v1/getMergeQueueMetrics')).status).toBe(401);
  });

  it('when the server restarts, then the metrics are rebuilt from the events to the same values', async () => {
    const before = projectedLines((await scrape(server.url)).text);
    await server.stop();
    server = await startProcess('apps/server/src/main.ts', world.env);
    expect(projectedLines((await scrape(server.url)).text)).toBe(before);
  });
});

describe('the distributed shape: a projector and two API replicas over Redis', () => {
  let world: World;
  const namespace = uniqueNamespace('metrics');
  const running: RunningProcess[] = [];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    world = await makeWorld();
    const file = path.join(world.dataDir, 'events.sqlite');
    env = {
      ...world.env,
      RAILYARD_REDIS_URL: REDIS_URL,
      RAILYARD_REDIS_NAMESPACE: namespace,
      RAILYARD_SQLITE_FILE: file,
      RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS: '1000',
    };
    // The engine's events, scripted: the history ends now, so its 1h window holds minutes 30 to 90.
    const end = Date.now();
    const t = (minute: number) => new Date(end - (SCRAPE_MINUTE - minute) * 60_000).toISOString();
    const store = new SqliteEventStore({ file });
    try {
      const q = queueIdOf(REPO, 'main');
      await store.append(queueStreamOf(q), asNewEvents(scriptedQueueHistory(q, t)), 'no_stream');
    } finally {
      await store.close();
    }
    running.push(await startProcess('apps/projector/src/main.ts', env, { listens: false, ready: /"message":"projector subscribing"/ }));
    running.push(...(await Promise.all([startProcess('apps/api/src/main.ts', env), startProcess('apps/api/src/main.ts', env)])));
  });
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await dropNamespace(namespace);
    await world?.cleanup();
  });

  it('when both replicas are scraped, then they serve the same projected numbers, and they match the scripted history', async () => {
    const [, a, b] = running as [RunningProcess, RunningProcess, RunningProcess];
    await eventually(
      () => parsed(a.url),
      (s) => s.samples('mq_depth_current').length === 1,
      'the metrics projection',
    );
    const [textA, textB] = await Promise.all([scrape(a.url), scrape(b.url)]);
    expect(projectedLines(textA.text)).toBe(projectedLines(textB.text));

    const s = await parseScrape(textA.text);
    const main = { repo: SLUG, branch: 'main', queue_type: 'main' };
    const bisection = { ...main, queue_type: 'bisection' };
    expect(s.value('mq_depth_current', main)).toBe(X.depth);
    expect(s.value('mq_awaiting_mergeability', main)).toBe(X.awaiting);
    expect(s.value('mq_testing_slots_active', bisection)).toBe(X.testing.bisection);
    for (const c of ['merged', 'failed', 'cancelled'] as const)
      expect(s.value('mq_pr_conclusions_1h_total', { ...main, conclusion: c })).toBe(X.conclusions[c]);
    expect(s.value('mq_pr_restarts_1h_total', main)).toBe(X.restarts.main);
    expect(s.histogram('mq_pr_wait_duration_1h_seconds', main)).toMatchObject({ count: X.wait.main.count, sum: X.wait.main.sum });
    expect(s.histogram('mq_pr_test_duration_1h_seconds', bisection)).toMatchObject({
      count: X.test.bisection.count,
      sum: X.test.bisection.sum,
    });
    expect(s.histogram('mq_pr_time_in_queue_1h_seconds', { ...main, conclusion: 'merged' })).toMatchObject({
      count: X.timeInQueue.merged.count,
      sum: X.timeInQueue.merged.sum,
    });
    expect(s.value('railyard_innocent_ejections_total', main)).toBe(X.innocentEjections);
    expect(s.value('railyard_bisections_total', main)).toBe(X.bisections);
    expect(s.value('railyard_projection_lag_events', { projection: 'metrics' })).toBe(0);
  });

  it('when the projector is down and events keep coming, then the lag shows and clears once it is back', async () => {
    const [projector, a] = running as [RunningProcess, RunningProcess];
    // Killed, not stopped: its lease outlives it for the TTL (10 s), so the write below is still taken
    // (a stopped projector releases the lease, and writes then fail fast with PROJECTOR_UNAVAILABLE).
    await projector.kill9();
    const ci = client(a.url, TOKENS.admin);
    expect((await ci.createQueue({ state: 'paused' }, 'lagging')).status).toBe(200);
    const lagging = await parsed(a.url);
    expect(lagging.value('railyard_projection_lag_events', { projection: 'metrics' })).toBe(1);
    expect(lagging.samples('mq_depth_current').map((x) => x.labels.branch)).toEqual(['main']);

    running[0] = await startProcess('apps/projector/src/main.ts', env, { listens: false, ready: /"message":"projector subscribing"/ });
    const caughtUp = await eventually(
      () => parsed(a.url),
      (s) => s.samples('mq_depth_current').length === 2,
      'catching up',
    );
    expect(depthBranches(caughtUp)).toEqual(['lagging', 'main']);
    expect((await parsed(a.url)).value('railyard_projection_lag_events', { projection: 'metrics' })).toBe(0);
  });
});
