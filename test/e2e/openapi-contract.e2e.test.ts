import request from 'supertest';
import { OPERATIONS } from '@railyard/api';
import { branchSha } from '@railyard/testkit';
import { REPO } from './support/client';
import { configureCi, prReaches, startEmbedded } from './support/engine-world';
import { junitXml, shaOf } from './support/junit';
import { openApiContract } from './support/openapi-contract';
import type { RunningProcess } from './support/processes';
import { openPrWithFiles, SLOW_OR_FAIL_CHECK } from './support/slow-check';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(180_000);

const KEY = { repo: REPO, targetBranch: 'main' };

let world: World;
let server: RunningProcess;
let contract: ReturnType<typeof openApiContract>;

interface CallOptions {
  token?: string | null;
  body?: unknown;
  query?: Record<string, string>;
  raw?: { type: string; bytes: Buffer };
}

/** One request to the real server; its answer must match the document whatever its status. */
const call = async (method: 'get' | 'post', url: string, opts: CallOptions = {}) => {
  let req = request(server.url)[method](url);
  const token = opts.token === undefined ? TOKENS.admin : opts.token;
  if (token) req = req.set('x-api-token', token);
  if (opts.query) req = req.query(opts.query);
  if (opts.raw) req = req.set('content-type', opts.raw.type).send(opts.raw.bytes);
  else if (opts.body !== undefined) req = req.send(opts.body as object);
  const res = await req;
  contract.check(method, url, res);
  return res;
};

const post = (url: string, body: unknown, token?: string | null) =>
  call('post', `/v1${url}`, { body, ...(token !== undefined ? { token } : {}) });

const openPrWith = (number: number, files: Record<string, string>) => openPrWithFiles(world, number, files);

const report = (outcome: 'pass' | 'fail') =>
  Buffer.from(
    junitXml(
      [
        { name: 'charges card', outcome, file: 'src/pay/card.test.ts' },
        { name: 'refunds', outcome: 'pass' },
      ],
      'pay',
    ),
  );

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { test: SLOW_OR_FAIL_CHECK });
  server = await startEmbedded(world);
  const doc = await request(server.url).get('/openapi.json').expect(200);
  contract = openApiContract(doc.body);
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('the served OpenAPI document against the real server', () => {
  it('when every operation is called on a live server, then each answer, success or error, validates against the document', async () => {
    // Operations and the document itself.
    expect((await call('get', '/healthz', { token: null })).status).toBe(200);
    expect((await call('get', '/readyz', { token: null })).status).toBe(200);
    expect((await call('get', '/openapi.json', { token: null })).status).toBe(200);
    expect((await call('get', '/docs', { token: null })).status).toBe(200);

    // Queues, and the error envelope of each kind of refusal.
    expect((await post('/createQueue', { ...KEY, concurrency: 1 })).status).toBe(200);
    expect((await post('/createQueue', KEY)).status).toBe(409);
    expect((await post('/createQueue', { ...KEY, targetBranch: 'x' }, TOKENS.read)).status).toBe(403);
    expect((await post('/getQueue', KEY, null)).status).toBe(401);
    expect((await post('/getQueue', { repo: REPO })).status).toBe(400);
    expect((await post('/getQueue', { ...KEY, targetBranch: 'nowhere' })).status).toBe(404);
    expect((await post('/updateQueue', { ...KEY, batchingMinSize: 2 })).status).toBe(200);
    expect((await post('/createQueue', { ...KEY, targetBranch: 'release' })).status).toBe(200);
    expect((await post('/deleteQueue', { ...KEY, targetBranch: 'release' })).status).toBe(200);

    // A PR through the queue and the local CI, to its merge.
    await openPrWith(1, { 'one.txt': 'fine\n' });
    expect((await post('/setImpactedTargets', { ...KEY, pr: { number: 1 }, impactedTargets: ['//one'] }, TOKENS.write)).status).toBe(200);
    expect((await post('/submitPullRequest', { ...KEY, pr: { number: 1 }, priority: 'high' }, TOKENS.write)).status).toBe(200);
    await prReaches(server.url, 1, ['merged']);
    expect((await post('/getSubmittedPullRequest', { ...KEY, pr: { number: 1 } }, TOKENS.read)).status).toBe(200);
    expect((await post('/cancelPullRequest', { ...KEY, pr: { number: 1 } }, TOKENS.write)).status).toBe(409);

    const history = await post('/getQueueHistory', { ...KEY, page_query: { page_size: 1000 } }, TOKENS.read);
    expect(history.status).toBe(200);
    const started = (history.body.events as { type: string; data: { testRunId?: string } }[]).find((e) => e.type === 'TestRunStarted');
    const testRunId = started?.data.testRunId as string;
    const details = await post('/getMergeQueueTestingDetails', { ...KEY, testRunId }, TOKENS.read);
    expect(details.status).toBe(200);
    const logUrl = new URL(details.body.statusChecks[0].url as string).pathname;
    expect((await call('get', logUrl, { token: TOKENS.read })).status).toBe(200);
    expect((await call('get', `/ci/logs/${testRunId}/nope`, { token: TOKENS.read })).status).toBe(404);
    expect((await call('get', new URL(details.body.testedPullRequests[0].prUrl as string).pathname, { token: TOKENS.read })).status).toBe(
      200,
    );

    // A PR restarted while testing, then cancelled.
    await openPrWith(2, { 'slow.txt': 'slow\n' });
    expect((await post('/submitPullRequest', { ...KEY, pr: { number: 2 } }, TOKENS.write)).status).toBe(200);
    await prReaches(server.url, 2, ['testing']);
    expect((await post('/restartTestsOnPullRequest', { ...KEY, pr: { number: 2 } }, TOKENS.write)).status).toBe(200);
    expect((await post('/getQueue', KEY, TOKENS.read)).body.enqueuedPullRequests).toHaveLength(1);
    expect((await post('/cancelPullRequest', { ...KEY, pr: { number: 2 } }, TOKENS.write)).status).toBe(200);
    const prPage = await post('/listPullRequests', { ...KEY, take: 1 }, TOKENS.read);
    expect([prPage.status, prPage.body.pullRequests.length]).toEqual([200, 1]);
    expect((await post('/listPullRequests', { ...KEY, cursor: prPage.body.nextCursor }, TOKENS.read)).status).toBe(200);

    // Statuses from an outside CI.
    const sha = (await branchSha(world.gitRoot, REPO, 'main')) as string;
    const status = { repo: REPO, sha, context: 'jenkins/build', state: 'success', targetUrl: 'https://ci.example.org/job/1' };
    expect((await post('/setCommitStatus', status, TOKENS.write)).status).toBe(200);
    expect((await post('/getCommitStatuses', { repo: REPO, sha }, TOKENS.read)).status).toBe(200);
    expect((await post('/getCommitStatuses', { repo: REPO, sha: 'c'.repeat(40) }, TOKENS.read)).status).toBe(404);

    // Test health: three failing runs on main make a broken test; then every flaky-tests operation.
    for (const n of [1, 2, 3]) {
      const files = [{ name: 'junit.xml', contentBase64: report('fail').toString('base64') }];
      const body = { repo: REPO, sha: shaOf(`main-${n}`), branch: 'main', job: 'unit', files };
      expect((await post('/uploadTestResults', body, TOKENS.write)).status).toBe(200);
    }
    const xml = await call('post', '/v1/uploadTestResults', {
      token: TOKENS.write,
      query: { repo: 'git.local/acme/widgets', sha: shaOf('xml'), branch: 'feature/x' },
      raw: { type: 'application/xml', bytes: report('pass') },
    });
    expect(xml.status).toBe(200);
    const listed = await post('/flaky-tests/list-unhealthy-tests', {
      repo: REPO,
      org_url_slug: 'railyard',
      status: 'broken',
      page_query: {},
    });
    expect(listed.status).toBe(200);
    const testId = listed.body.tests[0].id as string;
    expect((await post('/flaky-tests/get-test-details', { repo: REPO, test_id: testId }, TOKENS.read)).status).toBe(200);
    expect((await post('/flaky-tests/set-quarantine', { repo: REPO, testId, quarantine: 'always', reason: 'OPS-1' })).status).toBe(200);
    const quarantined = await post('/flaky-tests/list-quarantined-tests', { repo: REPO, org_url_slug: 'railyard', page_query: {} });
    expect(quarantined.body.quarantined_tests).toHaveLength(1);
    const failures = [{ testId }, { name: 'refunds', classname: 'pay', file: 'src/pay.test.ts', parent: 'pay' }];
    expect((await post('/flaky-tests/check-failures', { repo: REPO, failures }, TOKENS.read)).status).toBe(200);
    const ticket = { repo: REPO, test_case_id: testId, html_url: 'https://tracker.example.org/OPS-1' };
    expect((await post('/flaky-tests/link-ticket-to-test-case', ticket, TOKENS.write)).status).toBe(200);
    expect((await post('/flaky-tests/reclassify', { repo: REPO })).status).toBe(200);
    expect((await post('/flaky-tests/set-evidence-reporters', { repo: REPO, reporters: null })).status).toBe(200);
    expect((await post('/flaky-tests/get-evidence-reporters', { repo: REPO }, TOKENS.read)).status).toBe(200);
    const day = { start_time: new Date(Date.now() - 86_400_000).toISOString(), end_time: new Date(Date.now() + 60_000).toISOString() };
    const failing = await post(
      '/flaky-tests/list-failing-tests',
      { repo: REPO, org_url_slug: 'railyard', ...day, page_query: {} },
      TOKENS.read,
    );
    expect(failing.status).toBe(200);
    const run = {
      repo: REPO,
      org_url_slug: 'railyard',
      ci_job_name: 'unit',
      run_start: day.start_time,
      run_end: day.end_time,
      branch: 'main',
      sha: shaOf('main-1'),
      attempt: 1,
    };
    expect((await post('/flaky-ci/create-ci-run', run, TOKENS.write)).status).toBe(200);
    expect((await post('/flaky-tests/get-test-details', { repo: REPO, test_id: '6ba7b811-9dad-51d1-80b4-00c04fd430c8' })).status).toBe(404);

    // Webhook endpoints: a public address given as an IP, so the check needs no DNS (nothing is delivered here).
    const created = await post('/createWebhookEndpoint', { url: 'https://93.184.216.34/hook', events: ['queue.state_changed'] });
    expect(created.status).toBe(200);
    const endpointId = created.body.endpoint.endpointId as string;
    expect((await post('/createWebhookEndpoint', { url: 'http://127.0.0.1:9/hook' })).status).toBe(400);
    expect((await post('/listWebhookEndpoints', {})).status).toBe(200);
    expect((await post('/updateWebhookEndpoint', { endpointId, enabled: true })).status).toBe(200);
    expect((await post('/rotateWebhookSecret', { endpointId })).status).toBe(200);
    expect((await post('/listWebhookDeliveries', { endpointId })).status).toBe(200);
    expect((await post('/resendWebhookDelivery', { endpointId, attemptId: 999_999 })).status).toBe(404);
    // A queue paused is an event for it; the attempt fails (no network here) and is logged, which is what is sent again.
    expect((await post('/createQueue', { ...KEY, targetBranch: 'hooks' })).status).toBe(200);
    expect((await post('/updateQueue', { ...KEY, targetBranch: 'hooks', state: 'paused' })).status).toBe(200);
    let attemptId: number | undefined;
    for (let waited = 0; attemptId === undefined && waited < 90_000; waited += 500) {
      const list = await post('/listWebhookDeliveries', { endpointId });
      attemptId = (list.body.deliveries as { attemptId: number }[])[0]?.attemptId;
      if (attemptId === undefined) await new Promise((r) => setTimeout(r, 500));
    }
    expect((await post('/resendWebhookDelivery', { endpointId, attemptId })).status).toBe(200);
    expect((await post('/disableWebhookEndpoint', { endpointId })).status).toBe(200);
    expect((await post('/deleteWebhookEndpoint', { endpointId })).status).toBe(200);

    // Metrics, as Prometheus scrapes them.
    expect((await call('get', '/v1/getMergeQueueMetrics', { token: TOKENS.read })).status).toBe(200);
    expect((await call('get', '/v1/getMergeQueueMetrics', { token: TOKENS.read, query: { repoHost: 'git.local' } })).status).toBe(400);

    expect(contract.unseen()).toEqual([]);
    expect(contract.operationIds()).toHaveLength(OPERATIONS.length);
  });
});
