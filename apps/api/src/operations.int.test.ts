import path from 'node:path';
import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryMetricsStore, MemoryReadModelStore } from '@railyard/readmodels';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import request from 'supertest';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { composeApi, type ComposedApi } from './compose';
import { loadConfig } from '@railyard/runtime';
import type { AnyOperation } from './http/operation';
import { OPERATIONS } from './operations';
import { openTestHealthStore, testHealthConfigOf } from './test-health';

jest.setTimeout(30_000);

const TOKENS = { read: 'read-secret-0123456789abcdef', write: 'write-secret-0123456789abcdef', admin: 'admin-secret-0123456789abcdef' };
const BELOW = { write: 'read', admin: 'write' } as const;

let dir: string;
let composed: ComposedApi;
let statuses: CommitStatusStore;

beforeAll(async () => {
  dir = await makeTempDir();
  const gitRoot = path.join(dir, 'git');
  const blobs = new MemoryBlobStore();
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  const eventStore = new MemoryEventStore();
  statuses = localHostStatuses({ eventStore, gitRoot });
  // The composition both server shapes use, so the routes tried are the routes served.
  composed = composeApi({
    eventStore,
    blobs,
    readModels: new MemoryReadModelStore(),
    metrics: new MemoryMetricsStore(),
    testHealthStore: openTestHealthStore('memory', { blobs, config: testHealthConfig }),
    testHealthConfig,
    gitHost: new LocalGitHost({ root: gitRoot }),
    statuses,
    tokens: new TokenRegistry(
      parseTokenList(
        Object.entries(TOKENS)
          .map(([scope, secret]) => `${scope}:${secret}:${scope}`)
          .join(','),
      ),
    ),
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

/** The operation's path with its parameters' examples in place. */
const concrete = (op: AnyOperation): string =>
  op.path.replace(/\{(\w+)\}/g, (_, name: string) => String(op.parameters?.find((p) => p.name === name)?.example));
const named = (ops: readonly AnyOperation[]) => ops.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const);

describe('the operation table, as the composed app serves it', () => {
  it('when the table is read, then every operation has an id, and a method and path, of its own', () => {
    expect(new Set(OPERATIONS.map((op) => op.operationId)).size).toBe(OPERATIONS.length);
    expect(new Set(OPERATIONS.map((op) => `${op.method} ${op.path.toLowerCase()}`)).size).toBe(OPERATIONS.length);
  });

  it.each(named(OPERATIONS))('when %s is asked with another method, then 405 names its method in Allow', async (_name, op) => {
    const res = await request(composed.app)[op.method === 'get' ? 'put' : 'get'](concrete(op)).set('x-api-token', TOKENS.admin);
    expect([res.status, res.headers.allow, res.body.error?.code]).toEqual([405, op.method.toUpperCase(), 'METHOD_NOT_ALLOWED']);
  });

  it.each(named(OPERATIONS.filter((op) => op.scope !== 'public')))('when %s is called without a token, then 401', async (_name, op) => {
    const res = await request(composed.app)[op.method](concrete(op));
    expect([res.status, res.body.error?.code]).toEqual([401, 'AUTHENTICATION_REQUIRED']);
  });

  it.each(named(OPERATIONS.filter((op) => op.scope === 'write' || op.scope === 'admin')))(
    'when %s is called with a token of the scope below its own, then 403',
    async (_name, op) => {
      const below = BELOW[op.scope as keyof typeof BELOW];
      const res = await request(composed.app)[op.method](concrete(op)).set('x-api-token', TOKENS[below]).send({});
      expect([res.status, res.body.error?.code]).toEqual([403, 'INSUFFICIENT_PERMISSIONS']);
    },
  );
});

describe('the browsable document', () => {
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
