import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CommitChecker } from '@railyard/ci';
import { queueIdOf, type RepoRef } from '@railyard/domain';
import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type EventStoreCommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryReadModelStore } from '@railyard/readmodels';
import * as readModelTesting from '@railyard/readmodels/testing';
import { testRunTesting } from '@railyard/readmodels/testing';
import { createRepoWithCommits, makeTempDir, openPr, removeTempDir, commitOnBranch } from '@railyard/testkit';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp } from '../app';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { QueueCommands } from '../queue-commands';
import { inProcessProjector, ProjectionHealth } from '../readiness/projection-health';
import { storeTargets } from '../routes/impacted-targets';
import type { CiHttpDeps } from './deps';
import { ciPageRouters, ciRouters } from './routes';

const { RecordedEventFactory, prSubmitted, queueCreated } = readModelTesting;
const { testRunStarted, statusReported, runCancelled, runTimedOut, targetsSet } = testRunTesting;

const TOKENS = { read: 'read-secret-0123456789abc', write: 'write-secret-0123456789ab' };
const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const Q = queueIdOf(repo, 'main');
const RUN = '7e3c2a10-5b7d-4e1f-9a2b-3c4d5e6f7a8b';
const PUBLIC = 'http://railyard.test';
const T = (minute: number): string => new Date(Date.UTC(2026, 3, 1, 12, minute)).toISOString();

let dir: string;
let gitRoot: string;
let sha: string;
let app: Express;
let eventStore: MemoryEventStore;
let statuses: EventStoreCommitStatusStore;
let readModels: MemoryReadModelStore;
let blobs: MemoryBlobStore;
let factory: InstanceType<typeof RecordedEventFactory>;

const post = (p: string, body: unknown, token = TOKENS.write) =>
  request(app)
    .post(`/v1${p}`)
    .set('x-api-token', token)
    .send(body as object);
const get = (p: string, token: string | null = TOKENS.read) =>
  token ? request(app).get(p).set('x-api-token', token) : request(app).get(p);
const status = (extra: object = {}) => ({ repo, sha, context: 'jenkins/build', state: 'success', ...extra });

beforeEach(async () => {
  dir = await makeTempDir();
  gitRoot = path.join(dir, 'git');
  ({ sha } = await createRepoWithCommits(gitRoot, repo));
  const logger = createLogger('test');
  readModels = new MemoryReadModelStore();
  blobs = new MemoryBlobStore();
  eventStore = new MemoryEventStore();
  statuses = localHostStatuses({ eventStore, gitRoot, actor: 'api' });
  const deps = {
    commands: new QueueCommands(eventStore, readModels, logger, { clock: { now: () => new Date() } }),
    readModels,
    projection: new ProjectionHealth({ eventStore, readModels, presence: inProcessProjector, maxLagMs: 10_000 }),
    gitHost: new LocalGitHost({ root: gitRoot }),
    blobs,
    tokens: new TokenRegistry(parseTokenList(`dashboard:${TOKENS.read}:read,ci:${TOKENS.write}:write`)),
    logger,
  };
  const ci: CiHttpDeps = { statuses, commits: new CommitChecker(gitRoot), dataDir: dir, publicUrl: PUBLIC };
  app = buildApp(deps, ciRouters(deps, ci), ciPageRouters(deps, ci));
  factory = new RecordedEventFactory();
  await readModels.apply(factory.record(Q, queueCreated(Q, T(0))));
});

afterEach(async () => {
  await statuses.close();
  await removeTempDir(dir);
});

describe('POST /v1/setCommitStatus', () => {
  it('when a token posts a status, then it is recorded as that token’s; a body naming a reporter is refused', async () => {
    expect((await post('/setCommitStatus', status({ reporter: 'local-ci' }))).status).toBe(400);
    expect((await post('/setCommitStatus', status())).body.status.reporter).toBe('token:ci');
    expect((await statuses.reports(repo, sha)).map((r) => r.reporter)).toEqual(['token:ci']);
  });

  it('when an outside CI posts a status, then it is stored and read back with the combined state', async () => {
    const res = await post('/setCommitStatus', status({ state: 'PENDING', url: 'https://jenkins.test/job/1', description: 'building' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      repo,
      sha,
      status: {
        context: 'jenkins/build',
        state: 'pending',
        targetUrl: 'https://jenkins.test/job/1',
        description: 'building',
        reporter: 'token:ci',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    await post('/setCommitStatus', status({ context: 'lint' }));
    const read = await post('/getCommitStatuses', { repo, sha: sha.toUpperCase() }, TOKENS.read);
    expect(read.status).toBe(200);
    expect(read.body.state).toBe('pending');
    expect(read.body.statuses.map((s: { context: string; state: string }) => [s.context, s.state])).toEqual([
      ['jenkins/build', 'pending'],
      ['lint', 'success'],
    ]);
    await post('/setCommitStatus', status());
    expect((await post('/getCommitStatuses', { repo, sha }, TOKENS.read)).body.state).toBe('success');
  });

  it('when a status is posted, then listeners of another instance sharing the event store hear of it', async () => {
    const engineSide = localHostStatuses({ eventStore, gitRoot });
    try {
      const heard: string[] = [];
      engineSide.onChange((_r, s) => heard.push(s));
      await engineSide.whenListening();
      await post('/setCommitStatus', status());
      const deadline = Date.now() + 5000;
      while (!heard.includes(sha) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toContain(sha);
    } finally {
      await engineSide.close();
    }
  });

  it.each([
    ['a short sha', { sha: 'abc1234' }, 'sha'],
    ['an unknown state', { state: 'passed' }, 'state'],
    ['an empty context', { context: '  ' }, 'context'],
    ['a non-http url', { targetUrl: 'javascript:alert(1)' }, 'targetUrl'],
    ['two different urls', { targetUrl: 'https://a.test/1', url: 'https://b.test/2' }, 'url'],
    ['an unknown field', { colour: 'green' }, 'colour'],
    ['a description of 2000 characters', { description: 'x'.repeat(2000) }, 'description'],
  ])('when the body has %s, then 400 names the field and nothing is stored', async (_what, extra, field) => {
    const res = await post('/setCommitStatus', status(extra));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await statuses.list(repo, sha)).toEqual([]);
  });

  it('when the repository or commit does not exist, then 404 says which, and a name the host cannot hold is a 400', async () => {
    expect((await post('/setCommitStatus', status({ repo: { ...repo, name: 'nope' } }))).body.error.code).toBe('REPOSITORY_NOT_FOUND');
    const missing = await post('/setCommitStatus', status({ sha: 'b'.repeat(40) }));
    expect([missing.status, missing.body.error.code]).toEqual([404, 'COMMIT_NOT_FOUND']);
    const another = await commitOnBranch(gitRoot, repo, { branch: 'x', files: { a: 'b' } });
    expect((await post('/setCommitStatus', status({ sha: another }))).status).toBe(200);
    const odd = await post('/setCommitStatus', status({ repo: { ...repo, owner: 'a b' } }));
    expect([odd.status, odd.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('when the token is missing or only reads, then 401 or 403', async () => {
    expect((await request(app).post('/v1/setCommitStatus').send(status())).status).toBe(401);
    expect((await post('/setCommitStatus', status(), TOKENS.read)).status).toBe(403);
  });
});

describe('POST /v1/getMergeQueueTestingDetails', () => {
  const logUrl = (check: string) => `${PUBLIC}/ci/logs/${RUN}/${encodeURIComponent(check)}`;

  const seed = async (...more: Parameters<typeof factory.record>[1][]) => {
    const unit = await storeTargets(blobs, ['//pkg/a:test', '//pkg/b:test']);
    const dep = await storeTargets(blobs, ['//pkg/b:test', '//pkg/c:lib']);
    await readModels.apply(
      factory.record(
        Q,
        prSubmitted(1, T(1), { sha: 'h1' }),
        prSubmitted(2, T(1), { sha: 'h2' }),
        prSubmitted(3, T(1), { sha: 'h3' }),
        targetsSet(1, 'h1', T(2), dep.digest, dep.count),
        targetsSet(3, 'h3', T(2), unit.digest, unit.count),
        testRunStarted(RUN, T(3), {
          prNumbers: [3],
          dependentPrs: [1, 2],
          testBranch: `railyard-merge/pr-3/${RUN}`,
          testBranchSha: 'f'.repeat(40),
          requiredStatuses: ['ci/unit', 'jenkins'],
        }),
        statusReported(RUN, T(4), 'ci/unit', 'pending', logUrl('ci/unit')),
        statusReported(RUN, T(4), 'lint', 'pending', logUrl('lint')),
        statusReported(RUN, T(5), 'ci/unit', 'success', logUrl('ci/unit')),
        statusReported(RUN, T(5), 'jenkins', 'failure', 'https://jenkins.test/job/9'),
        ...more,
      ),
    );
  };

  it('when the run exists, then every field of the Test run object is there', async () => {
    await seed();
    const res = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: RUN }, TOKENS.read);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      testRunId: RUN,
      requiredStatuses: ['ci/unit', 'jenkins'],
      requiredStatusesSource: 'trunk_config',
      testBranch: `railyard-merge/pr-3/${RUN}`,
      testBranchSha: 'f'.repeat(40),
      checkSuites: [
        {
          name: 'railyard-ci',
          checkRuns: [
            { name: 'ci/unit', url: logUrl('ci/unit'), status: 'COMPLETED', conclusion: 'SUCCESS' },
            { name: 'lint', url: logUrl('lint'), status: 'IN_PROGRESS' },
          ],
        },
      ],
      statusChecks: [
        { context: 'ci/unit', url: logUrl('ci/unit'), state: 'SUCCESS' },
        { context: 'lint', url: logUrl('lint'), state: 'PENDING' },
        { context: 'jenkins', url: 'https://jenkins.test/job/9', state: 'FAILURE' },
      ],
      testedPullRequests: [{ prNumber: 3, prUrl: `${PUBLIC}/repos/git.test/acme/widgets/pulls/3`, title: 'PR 3' }],
      createdAt: T(3),
      status: 'in_progress',
      dependentPrs: [1, 2],
      impactedTargets: ['//pkg/a:test', '//pkg/b:test', '//pkg/c:lib'],
      impactedTargetsForTestedPrs: ['//pkg/a:test', '//pkg/b:test'],
    });
  });

  it('when the test branch is given instead of the id, then the run is found', async () => {
    await seed();
    const res = await post(
      '/getMergeQueueTestingDetails',
      { repo, targetBranch: 'main', testRunId: `refs/heads/railyard-merge/pr-3/${RUN}` },
      TOKENS.read,
    );
    expect(res.body.testRunId).toBe(RUN);
  });

  it('when the run was cancelled with a check still running, then that check shows as cancelled', async () => {
    await seed(runCancelled(RUN, T(6)));
    const res = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: RUN }, TOKENS.read);
    expect(res.body.status).toBe('cancelled');
    expect(res.body.checkSuites[0].checkRuns[1]).toEqual({
      name: 'lint',
      url: logUrl('lint'),
      status: 'COMPLETED',
      conclusion: 'CANCELLED',
    });
  });

  it('when the run timed out, then it failed and its unfinished checks timed out', async () => {
    await seed(runTimedOut(RUN, T(6)));
    const res = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: RUN }, TOKENS.read);
    expect(res.body.status).toBe('failed');
    expect(res.body.checkSuites[0].checkRuns[1]).toMatchObject({ status: 'COMPLETED', conclusion: 'TIMED_OUT' });
  });

  it('when a PR of the run impacts ALL, then the lists say ALL; without uploads they are left out', async () => {
    await readModels.apply(
      factory.record(
        Q,
        prSubmitted(8, T(1), { sha: 'h8' }),
        targetsSet(8, 'h8', T(1), 'x', 0, true),
        testRunStarted('run-all', T(2), { prNumbers: [8] }),
        testRunStarted('run-none', T(2), { prNumbers: [9] }),
      ),
    );
    const all = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: 'run-all' }, TOKENS.read);
    expect([all.body.impactedTargets, all.body.impactedTargetsForTestedPrs]).toEqual([['ALL'], ['ALL']]);
    const none = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: 'run-none' }, TOKENS.read);
    expect(none.body).not.toHaveProperty('impactedTargets');
    expect(none.body).not.toHaveProperty('impactedTargetsForTestedPrs');
    expect(none.body.checkSuites).toEqual([]);
  });

  it('when the run or the queue is unknown, or the id is malformed, then 404, 422 or 400 with a code', async () => {
    const unknown = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: RUN }, TOKENS.read);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'TEST_RUN_NOT_FOUND']);
    const noQueue = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'other', testRunId: RUN }, TOKENS.read);
    expect([noQueue.status, noQueue.body.error.code]).toEqual([404, 'QUEUE_NOT_FOUND']);
    const bad = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main', testRunId: '../../etc' }, TOKENS.read);
    // Trunk's schema takes any string as testRunId: one Railyard cannot hold is a 422 (docs/api.md, "Errors").
    expect([bad.status, bad.body.error.fields[0].field]).toEqual([422, 'testRunId']);
    const missing = await post('/getMergeQueueTestingDetails', { repo, targetBranch: 'main' }, TOKENS.read);
    expect(missing.status).toBe(400);
  });
});

describe('CI pages outside /v1', () => {
  it('when a check log exists, then it is served as plain text to a read token, and refused without one', async () => {
    await fs.mkdir(path.join(dir, 'ci-logs', RUN), { recursive: true });
    await fs.writeFile(path.join(dir, 'ci-logs', RUN, 'ci%2Funit.log'), 'line 1\nline 2\n');
    const res = await get(`/ci/logs/${RUN}/ci%2Funit`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('line 1\nline 2\n');
    expect((await get(`/ci/logs/${RUN}/ci%2Funit`, null)).status).toBe(401);
  });

  it('when the log is unknown or the path is malformed, then 404 or 400 as JSON errors', async () => {
    const missing = await get(`/ci/logs/${RUN}/nope`);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'LOG_NOT_FOUND']);
    expect((await get('/ci/logs/..%2F..%2Fetc/passwd')).status).toBe(400);
    expect((await get(`/ci/logs/${RUN}/%E0%A4%A`)).body.error.code).toBe('BAD_PATH');
  });

  it('when a PR page is asked for, then the local host’s PR comes back as JSON', async () => {
    await commitOnBranch(gitRoot, repo, { branch: 'feature', files: { f: '1' }, message: 'Add f' });
    await openPr(gitRoot, { repo, number: 4, head: 'feature' });
    const res = await get('/repos/git.test/acme/widgets/pulls/4');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ number: 4, title: 'Add f', state: 'open' });
    expect((await get('/repos/git.test/acme/widgets/pulls/5')).body.error.code).toBe('PR_NOT_FOUND');
    expect((await get('/v1/getQueue')).status).toBe(405);
  });
});
