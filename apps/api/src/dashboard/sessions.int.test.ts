import path from 'node:path';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { MemoryBlobStore, MemoryEventStore, type BlobStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryMetricsStore, MemoryReadModelStore } from '@railyard/readmodels';
import { loadConfig } from '@railyard/runtime';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import request from 'supertest';
import { composeApi, type ApiParts, type ComposedApi } from '../compose';
import { openTestHealthStore, testHealthConfigOf } from '../test-health';

// Dashboard sessions over HTTP, on the composition both server shapes use (docs/dashboard.md).

jest.setTimeout(30_000);

const READ = 'read-secret-0123456789abcdefgh';
let dir: string;
let blobs: BlobStore;
const opened: { composed: ComposedApi; statuses: CommitStatusStore }[] = [];

/** One API replica: the replicas of a test share the blob store and the page-token secret, as deployed ones do. */
const replica = (tokens: string, extra: Partial<ApiParts> = {}) => {
  const gitRoot = path.join(dir, 'git');
  const eventStore = new MemoryEventStore();
  const statuses = localHostStatuses({ eventStore, gitRoot });
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  const composed = composeApi({
    eventStore,
    blobs,
    readModels: new MemoryReadModelStore(),
    metrics: new MemoryMetricsStore(),
    testHealthStore: openTestHealthStore('memory', { blobs, config: testHealthConfig }),
    testHealthConfig,
    gitHost: new LocalGitHost({ root: gitRoot }),
    statuses,
    tokens: new TokenRegistry(parseTokenList(tokens)),
    logger: createLogger('test', 'error'),
    gitRoot,
    dataDir: dir,
    readYourWritesTimeoutMs: 1000,
    rateLimitPerSecond: 0,
    rateLimitUnauthenticatedPerSecond: 0,
    maxBodyBytesInFlight: 64 * 1024 * 1024,
    ...extra,
  });
  opened.push({ composed, statuses });
  return composed.app;
};

const cookieOf = (res: request.Response, name: string): string | undefined =>
  ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Signs in through the form as a browser does; answers the session cookie as the server set it. */
const signIn = async (app: ReturnType<typeof replica>, secret: string, headers: Record<string, string> = {}): Promise<string> => {
  const form = await request(app).get('/sign-in').set(headers);
  const pre = cookieOf(form, 'railyard_signin')?.split(';')[0] ?? '';
  const res = await request(app)
    .post('/sign-in')
    .set(headers)
    .set('Cookie', pre)
    .type('form')
    .send({ _csrf: csrfOf(form.text), token: secret, next: '/' });
  expect(res.status).toBe(303);
  return cookieOf(res, 'railyard_session') ?? '';
};
const overview = (app: ReturnType<typeof replica>, cookie: string) =>
  request(app)
    .get('/')
    .set('Cookie', cookie.split(';')[0] ?? '');

beforeEach(async () => {
  dir = await makeTempDir();
  blobs = new MemoryBlobStore();
});
afterEach(async () => {
  for (const { composed, statuses } of opened.splice(0)) {
    await composed.testHealth.close();
    await statuses.close();
  }
  await removeTempDir(dir);
});

describe('dashboard sessions', () => {
  it('when a browser signs out, then a copy of its cookie is sent back to the sign-in page, on this replica and on another', async () => {
    const app = replica(`dash:${READ}:read`);
    const cookie = await signIn(app, READ);
    expect((await overview(app, cookie)).status).toBe(200);
    const page = await overview(app, cookie);

    const out = await request(app)
      .post('/sign-out')
      .set('Cookie', cookie.split(';')[0] ?? '')
      .type('form')
      .send({ _csrf: csrfOf(page.text) });

    expect(out.status).toBe(303);
    for (const app2 of [app, replica(`dash:${READ}:read`)]) {
      const copied = await overview(app2, cookie);
      expect(copied.status).toBe(303);
      expect(copied.headers.location).toMatch(/^\/sign-in/);
    }
  });

  it('when the token is given another secret, then its sessions end', async () => {
    const cookie = await signIn(replica(`dash:${READ}:read`), READ);
    const rotated = replica('dash:a-new-secret-0123456789abcdef:read');
    expect((await overview(rotated, cookie)).status).toBe(303);
  });

  it('when a trusted proxy says the request came over TLS, then the cookies are Secure; from an untrusted one, not', async () => {
    const https = { 'X-Forwarded-Proto': 'https' };
    expect(await signIn(replica(`dash:${READ}:read`, { trustProxy: 'loopback' }), READ, https)).toMatch(/; Secure/);
    expect(await signIn(replica(`dash:${READ}:read`), READ, https)).not.toMatch(/; Secure/);
    expect(await signIn(replica(`dash:${READ}:read`, { secureCookies: 'always' }), READ)).toMatch(/; Secure/);
  });
});
