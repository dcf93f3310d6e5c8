import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { composeApi, openTestHealthStore, testHealthConfigOf } from '@railyard/api';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { loadConfig } from '@railyard/runtime';
import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryMetricsStore, MemoryReadModelStore, type ReadModelStore } from '@railyard/readmodels';
import * as readModelTesting from '@railyard/readmodels/testing';
import type { QueueEvent } from '@railyard/domain';
import { makeTempDir, removeTempDir } from '@railyard/testkit';

/**
 * `npm run bench -- dashboard [prs] [samples]`: the dashboard's queue page for a queue of `prs` PRs
 * (default 1,000), rendered by the real express app over loopback, one request at a time. The render
 * time is the page's own Server-Timing (request in, HTML ready: read models in memory, explanations
 * of every PR, the HTML); the request time adds the transfer. Target render p99 < 50 ms (issue 14).
 * See docs/benchmarks.md.
 */

const SECRET = 'bench-admin-secret-0123456789abcdef';
const T = (m: number): string => new Date(Date.UTC(2026, 0, 1, 9, 0) + m * 1000).toISOString();

const fill = async (readModels: ReadModelStore, prs: number): Promise<string> => {
  const { RecordedEventFactory, queueCreated, prSubmitted, testQueueId } = readModelTesting;
  const queueId = testQueueId();
  const events: QueueEvent[] = [queueCreated(queueId, T(0))];
  for (let n = 1; n <= prs; n += 1) events.push(prSubmitted(n, T(n), n % 10 === 0 ? { priorityValue: 10, priorityName: 'high' } : {}));
  // The first three PRs test in one stacked run each, with a check reported: the run graph and checks have something to draw.
  for (let n = 1; n <= 3; n += 1) {
    const testRunId = `run-${n}`;
    events.push(
      {
        type: 'TestRunStarted',
        data: {
          testRunId,
          testBranch: `railyard-merge/pr-${n}/${testRunId}`,
          testBranchSha: `tb-${n}`,
          baseSha: 'base',
          prNumbers: [n],
          dependentPrs: Array.from({ length: n - 1 }, (_, i) => i + 1),
          requiredStatuses: ['test', 'lint'],
          requiredStatusesSource: 'trunk_config',
          bisection: false,
          at: T(prs + n),
        },
      },
      { type: 'PrTestingStarted', data: { prNumber: n, testRunId, at: T(prs + n) } },
      {
        type: 'TestRunStatusReported',
        data: { testRunId, context: 'lint', state: 'success', url: `http://bench/ci/logs/${testRunId}/lint`, at: T(prs + n) },
      },
    );
  }
  await readModels.apply(new RecordedEventFactory().record(queueId, ...events));
  return queueId;
};

const percentileOf = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Signs in as a browser would: the sign-in page's cookie and CSRF field, then the token. */
const signIn = async (url: string): Promise<string> => {
  const form = await fetch(`${url}/sign-in`);
  const pre = (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
    body: new URLSearchParams({ _csrf: csrf, token: SECRET, next: '/' }).toString(),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('railyard_session='));
  if (res.status !== 303 || !session) throw new Error(`sign-in failed: ${res.status}`);
  return session.split(';')[0] as string;
};

export const run = async (args: string[]): Promise<object[]> => {
  const prs = Number(args[0] ?? 1000);
  const samples = Number(args[1] ?? 300);
  const dir = await makeTempDir('railyard-bench-dashboard-');
  const gitRoot = path.join(dir, 'git');
  const blobs = new MemoryBlobStore();
  const readModels = new MemoryReadModelStore();
  const eventStore = new MemoryEventStore();
  const statuses = localHostStatuses({ eventStore, gitRoot });
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  const composed = composeApi({
    eventStore,
    blobs,
    readModels,
    metrics: new MemoryMetricsStore(),
    testHealthStore: openTestHealthStore('memory', { blobs, config: testHealthConfig }),
    testHealthConfig,
    gitHost: new LocalGitHost({ root: gitRoot }),
    statuses,
    tokens: new TokenRegistry(parseTokenList(`bench:${SECRET}:admin`)),
    logger: createLogger('bench', 'error'),
    gitRoot,
    dataDir: dir,
    readYourWritesTimeoutMs: 1000,
    rateLimitPerSecond: 0,
    rateLimitUnauthenticatedPerSecond: 0,
    maxBodyBytesInFlight: 64 * 1024 * 1024,
  });
  const queueId = await fill(readModels, prs);
  const server = composed.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const cookie = await signIn(url);
    const pagePath = `/queues/${encodeURIComponent(queueId)}`;
    const once = async (): Promise<{ ms: number; renderMs: number; cpuMs: number; bytes: number }> => {
      const started = process.hrtime.bigint();
      const res = await fetch(`${url}${pagePath}`, { headers: { cookie } });
      const body = await res.text();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (res.status !== 200 || !body.includes(`#${prs}</a>`)) throw new Error(`the queue page answered ${res.status} without PR #${prs}`);
      const renderMs = Number(/render;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1]);
      if (!Number.isFinite(renderMs)) throw new Error('the page sent no Server-Timing render duration');
      const cpuMs = Number(/cpu;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1]);
      return { ms, renderMs, cpuMs, bytes: Buffer.byteLength(body) };
    };
    for (let i = 0; i < 30; i += 1) await once();
    const render: number[] = [];
    const total: number[] = [];
    const cpu: number[] = [];
    let bytes = 0;
    for (let i = 0; i < samples; i += 1) {
      const r = await once();
      render.push(r.renderMs);
      total.push(r.ms);
      cpu.push(r.cpuMs);
      bytes = r.bytes;
    }
    render.sort((a, b) => a - b);
    total.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    return [
      {
        name: `dashboard queue page, ${prs} PRs`,
        samples,
        renderP50Ms: round2(percentileOf(render, 50)),
        renderP95Ms: round2(percentileOf(render, 95)),
        renderP99Ms: round2(percentileOf(render, 99)),
        renderMaxMs: round2(render[render.length - 1] ?? 0),
        targetRenderP99Ms: 50,
        renderCpuP50Ms: round2(percentileOf(cpu, 50)),
        renderCpuP99Ms: round2(percentileOf(cpu, 99)),
        loadAverage1m: round2(os.loadavg()[0] ?? 0),
        cores: os.cpus().length,
        // Request to last byte, client in the same process: includes sending 400 KB and reading it.
        requestP50Ms: round2(percentileOf(total, 50)),
        requestP99Ms: round2(percentileOf(total, 99)),
        htmlBytes: bytes,
      },
    ];
  } finally {
    server.close();
    server.closeAllConnections();
    await composed.testHealth.close();
    await statuses.close();
    await removeTempDir(dir);
  }
};
