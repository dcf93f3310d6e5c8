import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import express from 'express';
import Redis from 'ioredis';
import { createTestHealth, errorHandler, type TestHealth, type TestHealthConfig } from '@railyard/api';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { MemoryBlobStore, MemoryEventStore, type RecordedEvent } from '@railyard/eventstore';
import { createLogger } from '@railyard/observability';
import { MemoryTestHealthStore, RedisTestHealthStore, type TestHealthReadModels } from '@railyard/readmodels';
import { startServer } from '@railyard/server';
import { encodeCases, testsStreamOf, TEST_HEALTH_EVENT_SCHEMA_VERSION, type CaseRecord, type TestHealthEvent } from '@railyard/testhealth';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { BENCH_TEST_HEALTH_CONFIG } from './support/bench-test-health';
import { dropNamespace } from './support/redis-namespace';
import { positiveIntFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';

/**
 * `npm run bench -- testhealth [ingest] [list] [memory] [redis]`:
 * - ingest: a generated JUnit file of BENCH_TH_CASES cases (default 50,000) posted to the embedded
 *   server (`startServer`, parse worker, SQLite events, in-memory models): first upload (every test
 *   new), a second one on the same tests (steady state), the same file gzip-compressed; then the
 *   Redis projection folding one such upload.
 * - list: list-unhealthy-tests over HTTP against BENCH_TH_TESTS flaky tests (default 100,000), at
 *   random pages (first, after, before, last), BENCH_TH_REQUESTS sequential requests (default
 *   2,000); memory and Redis read models. Target p99 < 50 ms.
 * One JSON line per case. peakRssMb is this process's peak so far (server and parse worker included).
 */

const REPO = { host: 'git.bench', owner: 'acme', name: 'health' };
const ORG = 'railyard';
const TOKEN = 'bench-token-0123456789abcdef';
const TARGET_P99_MS = 50;
const logger = createLogger('bench', 'error');

const progress = (line: string): void => {
  process.stderr.write(`[bench testhealth] ${line}\n`);
};

const peakRssMb = (): number => Math.round(process.resourceUsage().maxRSS / 1024);
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;
const seconds = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;

/** A jest-junit-like report: 500 suites of `cases / 500` tests, 1% failing with a message and a stack. */
export const generateJUnit = (cases: number, failEvery = 100): string => {
  const perSuite = Math.max(1, Math.ceil(cases / 500));
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="bench">\n'];
  for (let i = 0; i < cases; i += perSuite) {
    const suite = `module ${Math.floor(i / perSuite)}`;
    parts.push(`  <testsuite name="${suite}" tests="${perSuite}" timestamp="2026-03-01T10:00:00">\n`);
    for (let j = i; j < Math.min(cases, i + perSuite); j += 1) {
      const attrs = `name="${suite} handles case ${j} &amp; its edge" classname="${suite}" file="src/module-${Math.floor(i / perSuite)}/case.test.ts" time="0.0${j % 10}"`;
      parts.push(
        j % failEvery === 0
          ? `    <testcase ${attrs}><failure message="expected ${j} to equal ${j + 1}">at check (src/case.ts:${j % 300}:7)</failure></testcase>\n`
          : `    <testcase ${attrs}/>\n`,
      );
    }
    parts.push('  </testsuite>\n');
  }
  parts.push('</testsuites>\n');
  return parts.join('');
};

const postXml = async (
  url: string,
  body: Buffer,
  contentType: string,
  sha: string,
): Promise<{ status: number; body: Record<string, unknown> }> => {
  const query = new URLSearchParams({ repo: `${REPO.host}/${REPO.owner}/${REPO.name}`, sha, branch: 'main', job: 'bench' });
  const res = await fetch(`${url}/v1/uploadTestResults?${query}`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-api-token': TOKEN },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

async function* ingest(work: string, cases: number, redisUrl: string, wanted: (t: string) => boolean): AsyncIterable<object> {
  const gitRoot = path.join(work, 'git');
  const { sha } = await createRepoWithCommits(gitRoot, REPO, { files: { CODEOWNERS: 'src/ @acme/everyone\n' } });
  const xml = Buffer.from(generateJUnit(cases));
  writeFileSync(path.join(work, 'junit.xml'), xml);
  progress(`generated ${cases} cases, ${round(xml.length / 1024 / 1024)} MiB`);

  if (wanted('memory')) {
    process.env.RAILYARD_TEST_HEALTH_SWEEP_MINUTES = '0';
    process.env.RAILYARD_ENGINE = 'off';
    const server = await startServer(
      {
        port: 0,
        dataDir: work,
        gitRoot,
        apiTokens: `bench:${TOKEN}:admin`,
        eventStore: { kind: 'sqlite', file: path.join(work, 'events.sqlite'), synchronous: 'normal' },
      },
      { logger },
    );
    try {
      const uploads: [string, Buffer, string][] = [
        ['testhealth/ingest/first-upload', xml, 'application/xml'],
        ['testhealth/ingest/steady-state', xml, 'application/xml'],
        ['testhealth/ingest/gzip', gzipSync(xml), 'application/gzip'],
      ];
      for (const [name, body, type] of uploads) {
        progress(`${name}: uploading`);
        const started = process.hrtime.bigint();
        const res = await postXml(server.url, body, type, sha);
        const s = seconds(started);
        if (res.status !== 200) throw new Error(`${name}: upload answered ${res.status} ${JSON.stringify(res.body)}`);
        yield {
          name,
          shape: 'embedded: HTTP → parse worker → SQLite event → in-memory models → classification',
          cases: res.body.caseCount,
          bytes: body.length,
          seconds: round(s, 3),
          filesPerSec: round(1 / s, 2),
          testCasesPerSec: Math.round(cases / s),
          statusChanges: res.body.statusChanges,
          peakRssMb: peakRssMb(),
        };
      }
    } finally {
      await server.close();
    }
  }

  if (wanted('redis')) {
    const namespace = uniqueNamespace('th-ingest');
    const blobs = new MemoryBlobStore();
    const store = new RedisTestHealthStore({ redis: redisUrl, namespace, blobs });
    try {
      const records = syntheticCases(cases, 0);
      const events = new EventLog();
      const upload = await uploadEvent(blobs, records, new Date().toISOString());
      const started = process.hrtime.bigint();
      await store.apply(events.record([upload]));
      const s = seconds(started);
      yield {
        name: 'testhealth/ingest/project-redis',
        shape: 'one upload event folded into the Redis models (blob read, MGET, scripted writes)',
        cases,
        seconds: round(s, 3),
        testCasesPerSec: Math.round(cases / s),
        filesPerSec: round(1 / s, 2),
        peakRssMb: peakRssMb(),
      };
    } finally {
      await store.close();
      await dropNamespace(redisUrl, namespace);
    }
  }
}

/** Case records as an upload would carry them, ids derived from the index so they are stable and distinct. */
const syntheticCases = (count: number, offset: number): CaseRecord[] =>
  Array.from({ length: count }, (_, i) => {
    const n = offset + i;
    const hex = n.toString(16).padStart(12, '0');
    return {
      id: `00000000-0000-5000-8000-${hex}`,
      name: `module ${n % 500} handles case ${n}`,
      classname: `module ${n % 500}`,
      file: `src/module-${n % 500}/case.test.ts`,
      parent: `module ${n % 500}`,
      variant: '',
      outcome: 'flaky',
      durationMs: 3,
    };
  });

const uploadEvent = async (blobs: MemoryBlobStore, records: CaseRecord[], at: string): Promise<TestHealthEvent> => {
  const encoded = encodeCases(records);
  const cases = encoded.blob
    ? { digest: await blobs.put(encoded.blob), count: records.length, encoding: 'json+gzip' as const }
    : { inline: records };
  return {
    type: 'TestResultsUploaded',
    data: {
      uploadId: `u-${at}`,
      repo: REPO,
      orgSlug: ORG,
      branch: 'main',
      commitSha: 'a'.repeat(40),
      files: [{ name: 'junit.xml', bytes: 0 }],
      stats: { testCount: records.length, failedCount: 0 },
      caseCount: records.length,
      warnings: [],
      suiteFailures: [],
      cases,
      at,
    },
  };
};

/** Hands out recorded events with increasing positions, as the event store would. */
class EventLog {
  private position = 0n;
  private revision = -1;

  record(events: TestHealthEvent[]): RecordedEvent[] {
    return events.map((e) => {
      this.position += 1n;
      this.revision += 1;
      return {
        streamId: testsStreamOf(REPO),
        revision: this.revision,
        position: this.position,
        eventId: `e${this.position}`,
        type: e.type,
        data: e.data,
        metadata: { schemaVersion: TEST_HEALTH_EVENT_SCHEMA_VERSION, actor: 'bench', correlationId: 'bench', at: e.data.at },
        recordedAt: e.data.at,
      };
    });
  }
}

/** `tests` flaky tests with impacts spread over 0..49, so the order has ties and distinct values alike. */
const populate = async (store: TestHealthReadModels, blobs: MemoryBlobStore, tests: number): Promise<void> => {
  const log = new EventLog();
  const at = new Date().toISOString();
  const CHUNK = 50_000;
  for (let offset = 0; offset < tests; offset += CHUNK) {
    const records = syntheticCases(Math.min(CHUNK, tests - offset), offset);
    await store.apply(log.record([await uploadEvent(blobs, records, at)]));
    const changes: TestHealthEvent[] = records.map((r, i) => ({
      type: 'TestStatusChanged',
      data: {
        repo: REPO,
        testId: r.id,
        previous: { status: 'HEALTHY', reason: 'healthy: no monitor active', since: at },
        status: 'FLAKY',
        reason: 'pass_on_retry: bench',
        since: at,
        monitors: [],
        pullRequestsImpactedLast7d: (offset + i) % 50,
        basis: { revision: 0 },
        at,
      },
    }));
    for (let i = 0; i < changes.length; i += 5_000) await store.apply(log.record(changes.slice(i, i + 5_000)));
    progress(`populated ${Math.min(tests, offset + CHUNK)} tests`);
  }
};

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** The real test-health routes on a bare express app, over a given store: what list-unhealthy-tests costs, nothing else. */
const serveRoutes = async (
  store: TestHealthReadModels,
  blobs: MemoryBlobStore,
  gitRoot: string,
): Promise<{ url: string; testHealth: TestHealth; close: () => Promise<void> }> => {
  const config: TestHealthConfig = { ...BENCH_TEST_HEALTH_CONFIG, orgSlug: ORG };
  const testHealth = createTestHealth({
    eventStore: new MemoryEventStore(),
    blobs,
    store,
    tokens: new TokenRegistry(parseTokenList(`bench:${TOKEN}:admin`)),
    logger,
    gitRoot,
    config,
    serverUrl: () => 'http://bench',
  });
  const app = express();
  app.use(testHealth.router);
  app.use(errorHandler(logger));
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    testHealth,
    close: async () => {
      await testHealth.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

const listOnce = async (
  url: string,
  pageQuery: object,
): Promise<{ page: { next_page_token: string; prev_page_token: string; last_page_token: string }; tests: unknown[] }> => {
  const res = await fetch(`${url}/v1/flaky-tests/list-unhealthy-tests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': TOKEN },
    body: JSON.stringify({ repo: REPO, org_url_slug: ORG, status: 'FLAKY', page_query: pageQuery }),
  });
  if (res.status !== 200) throw new Error(`list answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { page: { next_page_token: string; prev_page_token: string; last_page_token: string }; tests: unknown[] };
};

async function* list(
  work: string,
  tests: number,
  requests: number,
  redisUrl: string,
  wanted: (t: string) => boolean,
): AsyncIterable<object> {
  const gitRoot = path.join(work, 'git-list');
  await createRepoWithCommits(gitRoot, REPO, { files: { CODEOWNERS: 'src/module-1*/ @acme/ones\nsrc/ @acme/everyone\n' } });
  const kinds = (['memory', 'redis'] as const).filter(wanted);
  for (const kind of kinds) {
    const blobs = new MemoryBlobStore();
    const namespace = uniqueNamespace('th-list');
    const store: TestHealthReadModels =
      kind === 'memory' ? new MemoryTestHealthStore({ blobs }) : new RedisTestHealthStore({ redis: new Redis(redisUrl), namespace, blobs });
    const served = await serveRoutes(store, blobs, gitRoot);
    try {
      progress(`${kind}: populating ${tests} flaky tests`);
      const populateStarted = process.hrtime.bigint();
      await populate(store, blobs, tests);
      const populateSeconds = seconds(populateStarted);
      // Tokens to jump to random places: every 10th page's next token, plus the last and a previous one.
      progress(`${kind}: collecting page tokens`);
      const tokens: string[] = [''];
      let page = await listOnce(served.url, { page_size: 100 });
      tokens.push(page.page.last_page_token);
      for (let i = 0; page.page.next_page_token !== '' && tokens.length < 120; i += 1) {
        page = await listOnce(served.url, { page_size: 100, page_token: page.page.next_page_token });
        if (i % 10 === 0) tokens.push(page.page.next_page_token, page.page.prev_page_token);
      }
      for (let i = 0; i < 50; i += 1) await listOnce(served.url, { page_size: 100, page_token: tokens[i % tokens.length] });
      progress(`${kind}: ${requests} timed requests`);
      const latencies: number[] = [];
      for (let i = 0; i < requests; i += 1) {
        const token = tokens[Math.floor(Math.random() * tokens.length)] ?? '';
        const started = process.hrtime.bigint();
        const answer = await listOnce(served.url, { page_size: 100, page_token: token });
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (answer.tests.length === 0) throw new Error('an empty page in a full listing');
      }
      latencies.sort((a, b) => a - b);
      const p99 = percentile(latencies, 99);
      yield {
        name: `testhealth/list-unhealthy/${kind}`,
        tests,
        pageSize: 100,
        requests,
        p50Ms: round(percentile(latencies, 50), 2),
        p90Ms: round(percentile(latencies, 90), 2),
        p99Ms: round(p99, 2),
        maxMs: round(latencies[latencies.length - 1] ?? 0, 2),
        populateSeconds: round(populateSeconds, 1),
        peakRssMb: peakRssMb(),
        target: `p99Ms < ${TARGET_P99_MS}`,
        met: p99 < TARGET_P99_MS,
      };
    } finally {
      await served.close();
      await store.close();
      if (kind === 'redis') await dropNamespace(redisUrl, namespace);
    }
  }
}

export async function* run(args: string[] = []): AsyncIterable<object> {
  const cases = positiveIntFromEnv('BENCH_TH_CASES', 50_000);
  const tests = positiveIntFromEnv('BENCH_TH_TESTS', 100_000);
  const requests = positiveIntFromEnv('BENCH_TH_REQUESTS', 2_000);
  const redisUrl = redisUrlFromEnv();
  const phases: string[] = args.filter((a) => a === 'ingest' || a === 'list');
  const stores: string[] = args.filter((a) => a === 'memory' || a === 'redis');
  const phase = (p: string) => phases.length === 0 || phases.includes(p);
  const store = (s: string) => stores.length === 0 || stores.includes(s);
  const work = await makeTempDir('railyard-bench-testhealth-');
  try {
    if (phase('ingest')) yield* ingest(work, cases, redisUrl, store);
    if (phase('list')) yield* list(work, tests, requests, redisUrl, store);
  } finally {
    await removeTempDir(work);
  }
}
