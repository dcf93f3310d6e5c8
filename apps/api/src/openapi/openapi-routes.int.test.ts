import path from 'node:path';
import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryMetricsStore, MemoryReadModelStore } from '@railyard/readmodels';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import express from 'express';
import request from 'supertest';
import { dashboardRouter } from '../dashboard/routes';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { composeApi, type ComposedApi } from '../compose';
import { registeredRoutes } from '../http/route-table';
import { loadConfig } from '@railyard/runtime';
import { openTestHealthStore, testHealthConfigOf } from '../routes/test-health';

jest.setTimeout(30_000);

type Doc = { paths: Record<string, Record<string, unknown>> };

let dir: string;
let composed: ComposedApi;
let statuses: CommitStatusStore;

/** An app holding the dashboard's router alone: the routes it adds. */
const dashboardOnly = () => {
  const app = express();
  app.use(dashboardRouter({} as never, { sessions: {} as never } as never));
  return app;
};

beforeAll(async () => {
  dir = await makeTempDir();
  const gitRoot = path.join(dir, 'git');
  const blobs = new MemoryBlobStore();
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  const eventStore = new MemoryEventStore();
  statuses = localHostStatuses({ eventStore, gitRoot });
  // The composition both server shapes use, so the routes walked are the routes served.
  composed = composeApi({
    eventStore,
    blobs,
    readModels: new MemoryReadModelStore(),
    metrics: new MemoryMetricsStore(),
    testHealthStore: openTestHealthStore('memory', { blobs, config: testHealthConfig }),
    testHealthConfig,
    gitHost: new LocalGitHost({ root: gitRoot }),
    statuses,
    tokens: new TokenRegistry(parseTokenList('ops:admin-secret-0123456789abcdef:admin')),
    logger: createLogger('test', 'error'),
    gitRoot,
    dataDir: dir,
    readYourWritesTimeoutMs: 1000,
    rateLimitPerSecond: 0,
    rateLimitUnauthenticatedPerSecond: 0,
    maxBodyBytesInFlight: 64 * 1024 * 1024,
  });
});

afterAll(async () => {
  await composed.testHealth.close();
  await statuses.close();
  await removeTempDir(dir);
});

describe('the OpenAPI document against the routes the server registers', () => {
  const documented = async (): Promise<Doc> => (await request(composed.app).get('/openapi.json').expect(200)).body as Doc;

  it('when the app is walked, then every route it answers is an operation of the document', async () => {
    const doc = await documented();
    // The dashboard's HTML pages and forms are for browsers, not API clients: docs/dashboard.md lists them (D161).
    const pages = new Set(registeredRoutes(dashboardOnly()).map((r) => `${r.method} ${r.path}`));
    const routes = registeredRoutes(composed.app).filter((r) => !pages.has(`${r.method} ${r.path}`));

    expect(routes.length).toBeGreaterThan(25);
    const missing = routes.filter((r) => r.method !== 'all' && !doc.paths[r.path]?.[r.method]);
    expect(missing).toEqual([]);
    // The 405 answers for other methods sit on documented paths too.
    expect(routes.filter((r) => r.method === 'all' && !doc.paths[r.path])).toEqual([]);
  });

  it('when the document is read, then every operation in it is a route the app answers', async () => {
    const doc = await documented();
    const served = new Set(registeredRoutes(composed.app).map((r) => `${r.method} ${r.path}`));

    const operations = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));

    expect(operations.filter((o) => !served.has(o))).toEqual([]);
  });

  it('when /docs is opened, then the page and every asset it names come from this server', async () => {
    const page = await request(composed.app).get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);

    expect(refs.filter((r) => /^[a-z]+:|^\/\//i.test(r))).toEqual([]);
    for (const ref of refs) {
      const asset = await request(composed.app).get(new URL(ref, 'http://server/docs').pathname);
      expect([ref, asset.status]).toEqual([ref, 200]);
      expect(asset.body.length ?? asset.text.length).toBeGreaterThan(0);
    }
    expect((await request(composed.app).get('/docs/assets/index.html')).status).toBe(404);
  });
});
