import { execFile } from 'node:child_process';
import { client, REPO } from './support/client';
import { RAILYARD_BIN, ROOT, startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(180_000);

const REPO_SPEC = `${REPO.host}/${REPO.owner}/${REPO.name}`;
const BRANCH = 'main';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run railyard -- …` as a real process, reading the data dir the server writes. */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [RAILYARD_BIN, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let world: World;
let server: RunningProcess;
let admin: ReturnType<typeof client>;
let ci: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;

/** What getQueue answered, and the instant right after it answered. */
const recorded: { at: string; status: number; body: unknown; step: string }[] = [];

const record = async (step: string): Promise<void> => {
  const res = await reader.getQueue(BRANCH);
  recorded.push({ at: new Date().toISOString(), status: res.status, body: res.body, step });
  // Real time between steps, so each recorded instant falls strictly between two changes.
  await sleep(40);
};

const history = (body: object, token = TOKENS.read) =>
  client(server.url, token).post('/getQueueHistory', { repo: REPO, targetBranch: BRANCH, ...body });

beforeAll(async () => {
  world = await makeWorld();
  for (const n of [1, 2, 3]) await world.openFeaturePr(n);
  await world.openConflictingPr(6);
  server = await startProcess('apps/server/src/main.ts', world.env);
  admin = client(server.url, TOKENS.admin);
  ci = client(server.url, TOKENS.write);
  reader = client(server.url, TOKENS.read);

  // A paused queue: nothing but these requests changes it, so every recorded answer is exact.
  await record('before the queue existed');
  expect((await admin.createQueue({ state: 'paused', concurrency: 2 }, BRANCH)).status).toBe(200);
  await record('created');
  expect(
    (await ci.post('/submitPullRequest', { repo: REPO, targetBranch: BRANCH, pr: { number: 1 } }).set('x-request-id', 'audit-submit-1'))
      .status,
  ).toBe(200);
  await record('PR 1 submitted');
  expect((await ci.submit(2, { priority: 'high' }, BRANCH)).status).toBe(200);
  await record('PR 2 submitted high');
  expect((await ci.submit(6, {}, BRANCH)).body.state).toBe('not_ready');
  await record('PR 6 waits for mergeability');
  expect((await ci.submit(1, { priority: 'urgent' }, BRANCH)).status).toBe(200);
  await record('PR 1 made urgent');
  expect((await ci.cancel(2, BRANCH)).status).toBe(200);
  await record('PR 2 cancelled');
  expect((await admin.updateQueue({ concurrency: 3, requiredStatuses: ['build'] }, BRANCH)).status).toBe(200);
  await record('settings changed');
  expect((await ci.submit(2, {}, BRANCH)).status).toBe(200);
  expect((await ci.submit(3, { priority: 'low' }, BRANCH)).status).toBe(200);
  await record('PR 2 back, PR 3 low');
  for (const n of [1, 2, 3, 6]) expect((await ci.cancel(n, BRANCH)).status).toBe(200);
  expect((await admin.deleteQueue(BRANCH)).status).toBe(200);
  await record('deleted');
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('POST /v1/getQueueHistory', () => {
  it('when the queue was deleted, then its whole trail is still there, in order, ending with QueueDeleted', async () => {
    expect((await reader.getQueue(BRANCH)).status).toBe(404);
    const res = await history({ page_query: { page_size: 1000 } });
    expect(res.status).toBe(200);
    const types = res.body.events.map((e: { type: string }) => e.type);
    expect(types[0]).toBe('QueueCreated');
    expect(types[types.length - 1]).toBe('QueueDeleted');
    expect(res.body.events.map((e: { revision: number }) => e.revision)).toEqual(types.map((_: string, i: number) => i));
    expect(res.body.page).toMatchObject({ total_rows: types.length, next_page_token: '' });
  });

  it('when events were caused by requests, then each names its actor, reason and correlation id', async () => {
    const { events } = (await history({ page_query: { page_size: 1000 } })).body;
    const created = events.find((e: { type: string }) => e.type === 'QueueCreated');
    expect(created).toMatchObject({ actor: 'ops', reason: null });
    const first = events.find((e: { type: string; prNumber?: number }) => e.type === 'PrSubmitted' && e.prNumber === 1);
    expect(first).toMatchObject({
      actor: 'ci',
      reason: 'API_REQUESTED',
      correlationId: 'audit-submit-1',
      data: { prNumber: 1, state: 'pending' },
    });
    const cancelled = events.find((e: { type: string; prNumber?: number }) => e.type === 'PrCancelled' && e.prNumber === 2);
    expect(cancelled).toMatchObject({ actor: 'ci', reason: 'API_REQUESTED' });
    for (const e of events) {
      expect(typeof e.position).toBe('string');
      expect(Date.parse(e.time)).not.toBeNaN();
    }
  });

  it('when paged with small pages, then following next_page_token yields every event once, in order', async () => {
    const all = (await history({ page_query: { page_size: 1000 } })).body.events;
    const seen: unknown[] = [];
    let token = '';
    let pages = 0;
    do {
      const res = await history({ page_query: { page_size: 4, page_token: token } });
      expect(res.status).toBe(200);
      seen.push(...res.body.events);
      token = res.body.page.next_page_token;
      pages += 1;
    } while (token);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 4));
  });

  it('when since and until are given, then only events with since <= time < until come back', async () => {
    const all = (await history({ page_query: { page_size: 1000 } })).body.events as { time: string; revision: number }[];
    const since = all[3]?.time ?? '';
    const until = all[8]?.time ?? '';
    const res = await history({ since, until, page_query: { page_size: 1000 } });
    expect(res.status).toBe(200);
    const expected = all.filter((e) => Date.parse(e.time) >= Date.parse(since) && Date.parse(e.time) < Date.parse(until));
    expect(res.body.events.map((e: { revision: number }) => e.revision)).toEqual(expected.map((e) => e.revision));
  });

  it('when the page query or times are bad, then 400 names the problem', async () => {
    const first = await history({ page_query: { page_size: 2 } });
    const cases: [object, string][] = [
      [{ page_query: { page_size: 0 } }, 'INVALID_PAGE_SIZE'],
      [{ page_query: { page_size: 5000 } }, 'INVALID_PAGE_SIZE'],
      [{ page_query: { page_size: 'ten' } }, 'INVALID_PAGE_SIZE'],
      [{ page_query: { page_token: 'garbage' } }, 'INVALID_PAGE_TOKEN'],
      [{ page_query: { page_token: `${first.body.page.next_page_token}x` } }, 'INVALID_PAGE_TOKEN'],
      [{ since: '2020-01-01T00:00:00Z', page_query: { page_token: first.body.page.next_page_token } }, 'PAGE_TOKEN_MISMATCH'],
      [{ since: 'yesterday' }, 'VALIDATION_FAILED'],
      [{ since: '2026-03-02T00:00:00Z', until: '2026-03-01T00:00:00Z' }, 'VALIDATION_FAILED'],
      [{ limit: 3 }, 'VALIDATION_FAILED'],
    ];
    for (const [body, code] of cases) {
      const res = await history(body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code });
    }
  });

  it('when no queue ever existed for the branch, then 404; without a token, 401', async () => {
    const res = await client(server.url, TOKENS.read).post('/getQueueHistory', { repo: REPO, targetBranch: 'never-existed' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('QUEUE_NOT_FOUND');
    expect((await client(server.url, '').post('/getQueueHistory', { repo: REPO, targetBranch: BRANCH })).status).toBe(401);
  });
});

describe('railyard history', () => {
  it('when run on the data dir, then it prints the same events as the API, as JSON lines', async () => {
    const api = (await history({ page_query: { page_size: 1000 } })).body.events;
    const out = await cli(['history', '--repo', REPO_SPEC, '--branch', BRANCH, '--json'], { RAILYARD_DATA_DIR: world.dataDir });
    expect(out.code).toBe(0);
    expect(
      out.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(api);
  });

  it('when run through the API, then it pages through and prints one readable line per event', async () => {
    const count = (await history({ page_query: { page_size: 1000 } })).body.events.length;
    const out = await cli(['history', '--repo', REPO_SPEC, '--branch', BRANCH, '--api', server.url, '--token', TOKENS.read]);
    expect(out.code).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(count);
    expect(lines[0]).toMatch(/^\S+Z {2}r0 {2}QueueCreated {2}actor=ops$/);
    expect(lines.some((l) => /PrCancelled {2}#2 {2}actor=ci {2}reason=API_REQUESTED/.test(l))).toBe(true);
  });

  it('when the queue never existed or the usage is wrong, then exit 1 or 2 with a message', async () => {
    const missing = await cli(['history', '--repo', REPO_SPEC, '--branch', 'never-existed'], { RAILYARD_DATA_DIR: world.dataDir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no queue has ever existed/);
    const usage = await cli(['history', '--repo', 'acme/widgets', '--branch', BRANCH]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/HOST\/OWNER\/NAME/);
  });
});

describe('railyard replay', () => {
  it('when replayed at each recorded instant, then it prints exactly what getQueue answered then', async () => {
    for (const r of recorded) {
      const out = await cli(['replay', '--repo', REPO_SPEC, '--branch', BRANCH, '--at', r.at, '--json'], {
        RAILYARD_DATA_DIR: world.dataDir,
      });
      if (r.status === 404) {
        expect({ step: r.step, code: out.code }).toEqual({ step: r.step, code: 1 });
        expect(out.stderr).toMatch(/did not exist/);
      } else {
        expect({ step: r.step, code: out.code, queue: JSON.parse(out.stdout) }).toEqual({ step: r.step, code: 0, queue: r.body });
      }
    }
  });

  it('when replayed through the API, then the answer is the same as from the data dir', async () => {
    const r = recorded.find((x) => x.step === 'PR 2 back, PR 3 low');
    const out = await cli(['replay', '--repo', REPO_SPEC, '--branch', BRANCH, '--at', r?.at ?? '', '--api', server.url, '--json'], {
      RAILYARD_API_TOKEN: TOKENS.read,
    });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(r?.body);
    // Without --json, the same queue as the table `queue show` prints, in the same order.
    const table = await cli(['replay', '--repo', REPO_SPEC, '--branch', BRANCH, '--at', r?.at ?? '', '--url', server.url], {
      RAILYARD_API_TOKEN: TOKENS.read,
    });
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[1]).toMatch(/^POS +PR +STATE/);
    expect([...table.stdout.matchAll(/^\d+ +#(\d+) /gm)].map((m) => Number(m[1]))).toEqual([1, 6, 2, 3]);
    expect((r?.body as { enqueuedPullRequests: { number: number }[] }).enqueuedPullRequests.map((p) => p.number)).toEqual([1, 6, 2, 3]);
  });
});
