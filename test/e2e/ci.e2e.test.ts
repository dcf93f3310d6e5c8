import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import request from 'supertest';
import { LocalCiRunner } from '@railyard/ci';
import { queueIdOf, queueStreamOf, QUEUE_EVENT_SCHEMA_VERSION, type QueueEvent } from '@railyard/domain';
import { SqliteEventStore } from '@railyard/eventstore';
import { localHostStatuses } from '@railyard/githost';
import { commitOnBranch } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { RAILYARD_BIN, ROOT, startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);

const REPO_SPEC = `${REPO.host}/${REPO.owner}/${REPO.name}`;

let world: World;
let server: RunningProcess;
let ci: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;

/** The real CLI (the build's `railyard`) against the world's data dir. */
const railyard = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, [RAILYARD_BIN, ...args], { cwd: ROOT, env: { ...process.env, ...world.env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });

const statusesOf = async (sha: string) =>
  (await reader.post('/getCommitStatuses', { repo: REPO, sha })).body as {
    state: string;
    statuses: { context: string; state: string; targetUrl?: string }[];
  };

const eventually = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
};

beforeAll(async () => {
  world = await makeWorld();
  // The engine is off: these tests play its part (running the CI, recording run events) themselves.
  server = await startProcess('apps/server/src/main.ts', { ...world.env, RAILYARD_ENGINE: 'off' });
  ci = client(server.url, TOKENS.write);
  reader = client(server.url, TOKENS.read);
  await client(server.url, TOKENS.admin).createQueue();
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('commit statuses from outside CI', () => {
  it('when a CI posts statuses over HTTP, then they are stored per context and read back with the combined state', async () => {
    const sha = await commitOnBranch(world.gitRoot, REPO, { branch: 'status-http', files: { 'a.txt': 'a\n' } });
    expect(
      (await ci.post('/setCommitStatus', { repo: REPO, sha, context: 'jenkins', state: 'pending', url: 'https://jenkins.test/1' })).status,
    ).toBe(200);
    expect((await ci.post('/setCommitStatus', { repo: REPO, sha, context: 'buildkite', state: 'SUCCESS' })).status).toBe(200);
    expect((await statusesOf(sha)).state).toBe('pending');
    await ci.post('/setCommitStatus', { repo: REPO, sha, context: 'jenkins', state: 'error', description: 'agent lost' });
    const read = await statusesOf(sha);
    expect(read.state).toBe('failure');
    expect(read.statuses.map((s) => [s.context, s.state])).toEqual([
      ['jenkins', 'error'],
      ['buildkite', 'success'],
    ]);
  });

  it('when the input is bad or names nothing that exists, then a JSON 4xx says why and nothing is stored', async () => {
    const sha = await commitOnBranch(world.gitRoot, REPO, { branch: 'status-bad', files: { 'b.txt': 'b\n' } });
    const cases: [object, number, string][] = [
      [{ sha: sha.slice(0, 12) }, 400, 'VALIDATION_FAILED'],
      [{ state: 'green' }, 400, 'VALIDATION_FAILED'],
      [{ sha: 'e'.repeat(40) }, 404, 'COMMIT_NOT_FOUND'],
      [{ repo: { ...REPO, name: 'gadgets' } }, 404, 'REPOSITORY_NOT_FOUND'],
    ];
    for (const [extra, status, code] of cases) {
      const res = await ci.post('/setCommitStatus', { repo: REPO, sha, context: 'c', state: 'success', ...extra });
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
    expect((await reader.post('/setCommitStatus', { repo: REPO, sha, context: 'c', state: 'success' })).status).toBe(403);
    expect((await statusesOf(sha)).statuses).toEqual([]);
  });

  it('when statuses are set with the CLI, directly or through the API, then the server sees both', async () => {
    const sha = await commitOnBranch(world.gitRoot, REPO, { branch: 'status-cli', files: { 'c.txt': 'c\n' } });
    const direct = await railyard(['status', 'set', '--repo', REPO_SPEC, '--sha', sha, '--context', 'direct', '--state', 'success']);
    expect(direct).toMatchObject({ code: 0, stderr: '' });
    const viaApi = await railyard([
      'status',
      'set',
      '--repo',
      REPO_SPEC,
      '--sha',
      sha,
      '--context',
      'via-api',
      '--state',
      'failure',
      '--api',
      server.url,
      '--token',
      TOKENS.write,
    ]);
    expect(viaApi).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(viaApi.stdout).status).toMatchObject({ context: 'via-api', state: 'failure' });
    expect((await statusesOf(sha)).statuses.map((s) => s.context)).toEqual(['direct', 'via-api']);
    const refused = await railyard([
      'status',
      'set',
      '--repo',
      REPO_SPEC,
      '--sha',
      'e'.repeat(40),
      '--context',
      'x',
      '--state',
      'success',
      '--api',
      server.url,
      '--token',
      TOKENS.write,
    ]);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/404 COMMIT_NOT_FOUND/) });
  });
});

describe('the local CI next to a running server', () => {
  it('when checks run on a commit, then their statuses link to logs the server serves', async () => {
    const sha = await commitOnBranch(world.gitRoot, REPO, {
      branch: 'ci-run',
      files: { '.railyard.yml': 'ci:\n  unit: "echo unit tests pass"\n  lint: "echo 2 problems >&2; exit 1"\n', 'marker.txt': 'm\n' },
    });
    // A runner in this process reports into the server's event store, as a standalone engine's does.
    const eventStore = new SqliteEventStore({ file: path.join(world.dataDir, 'events.sqlite') });
    const statuses = localHostStatuses({ eventStore, gitRoot: world.gitRoot });
    const runner = new LocalCiRunner({ gitRoot: world.gitRoot, dataDir: world.dataDir, statuses, publicUrl: () => server.url });
    const testRunId = randomUUID();
    try {
      await runner.trigger({ repo: REPO, sha, branch: `railyard-merge/pr-9/${testRunId}`, testRunId, timeoutMinutes: 5 });
      await runner.whenDone(testRunId);
    } finally {
      await runner.close();
      await statuses.close();
      await eventStore.close();
    }
    const read = await statusesOf(sha);
    expect(read.statuses.map((s) => [s.context, s.state])).toEqual([
      ['unit', 'success'],
      ['lint', 'failure'],
    ]);
    const logUrl = read.statuses.find((s) => s.context === 'lint')?.targetUrl as string;
    expect(logUrl).toBe(`${server.url}/ci/logs/${testRunId}/lint`);
    const log = await request(logUrl).get('').set('x-api-token', TOKENS.read);
    expect(log.status).toBe(200);
    expect(log.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(log.text).toMatch(/2 problems\n# exit code 1\n/);
    expect((await request(logUrl).get('')).status).toBe(401);
    expect((await request(server.url).get(`/ci/logs/${testRunId}/nope`).set('x-api-token', TOKENS.read)).status).toBe(404);
  });
});

describe('getMergeQueueTestingDetails', () => {
  it('when the engine records a run, then the details show every field, and the PR URL is served', async () => {
    await world.openFeaturePr(1, { title: 'Ahead of the run' });
    await world.openFeaturePr(2, { title: 'Under test' });
    expect((await ci.submit(1)).status).toBe(200);
    expect((await ci.submit(2)).status).toBe(200);
    expect((await ci.setTargets(2, ['//app:test', '//lib:core'])).status).toBe(200);
    expect((await ci.setTargets(1, ['//lib:core', '//docs:site'])).status).toBe(200);

    // What the engine would append, written by another process into the same SQLite file.
    const testRunId = randomUUID();
    const queueId = queueIdOf(REPO, 'main');
    const stream = queueStreamOf(queueId);
    const at = new Date().toISOString();
    const logUrl = `${server.url}/ci/logs/${testRunId}/unit`;
    const events: QueueEvent[] = [
      {
        type: 'TestRunStarted',
        data: {
          testRunId,
          testBranch: `railyard-merge/pr-2/${testRunId}`,
          testBranchSha: 'd'.repeat(40),
          baseSha: 'c'.repeat(40),
          prNumbers: [2],
          dependentPrs: [1],
          requiredStatuses: ['unit', 'jenkins'],
          requiredStatusesSource: 'merge_instance',
          bisection: false,
          at,
        },
      },
      { type: 'PrTestingStarted', data: { prNumber: 2, testRunId, at } },
      { type: 'TestRunStatusReported', data: { testRunId, context: 'unit', state: 'success', url: logUrl, at } },
      { type: 'TestRunStatusReported', data: { testRunId, context: 'jenkins', state: 'failure', url: 'https://jenkins.test/7', at } },
      { type: 'TestRunFailed', data: { testRunId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['jenkins'], at } },
    ];
    const store = new SqliteEventStore({ file: path.join(world.dataDir, 'events.sqlite') });
    try {
      const revision = (await store.readStream(stream)).length - 1;
      const newEvents = events.map((e) => ({
        eventId: randomUUID(),
        type: e.type,
        data: e.data,
        metadata: { schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, actor: 'engine', correlationId: randomUUID(), at },
      }));
      await store.append(stream, newEvents, revision);
    } finally {
      await store.close();
    }

    const details = await eventually(async () => {
      const res = await reader.post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId });
      return res.status === 200 && res.body.status === 'failed' ? res.body : undefined;
    });
    expect(details).toEqual({
      testRunId,
      requiredStatuses: ['unit', 'jenkins'],
      requiredStatusesSource: 'merge_instance',
      testBranch: `railyard-merge/pr-2/${testRunId}`,
      testBranchSha: 'd'.repeat(40),
      checkSuites: [{ name: 'railyard-ci', checkRuns: [{ name: 'unit', url: logUrl, status: 'COMPLETED', conclusion: 'SUCCESS' }] }],
      statusChecks: [
        { context: 'unit', url: logUrl, state: 'SUCCESS' },
        { context: 'jenkins', url: 'https://jenkins.test/7', state: 'FAILURE' },
      ],
      testedPullRequests: [{ prNumber: 2, prUrl: `${server.url}/repos/git.local/acme/widgets/pulls/2`, title: 'Under test' }],
      createdAt: at,
      status: 'failed',
      dependentPrs: [1],
      impactedTargets: ['//app:test', '//docs:site', '//lib:core'],
      impactedTargetsForTestedPrs: ['//app:test', '//lib:core'],
    });
    const pr = await request(details.testedPullRequests[0].prUrl).get('').set('x-api-token', TOKENS.read);
    expect(pr.status).toBe(200);
    expect(pr.body).toMatchObject({ number: 2, title: 'Under test', baseBranch: 'main' });

    const missing = await reader.post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId: randomUUID() });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'TEST_RUN_NOT_FOUND']);
    const bad = await reader.post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main' });
    expect(bad.status).toBe(400);
  });
});
