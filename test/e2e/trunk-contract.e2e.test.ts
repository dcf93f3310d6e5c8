import request from 'supertest';
import { branchSha } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { configureCi, prReaches, startEmbedded } from './support/engine-world';
import { cartCase, junitXml, shaOf, testHealthClient, type CaseSpec } from './support/junit';
import type { RunningProcess } from './support/processes';
import { openPrWithFiles, SLOW_OR_FAIL_CHECK } from './support/slow-check';
import { checkAgainstTrunk, contractScore, TRUNK_OPERATION_NAMES, trunkChecks } from './support/trunk-contract';
import { makeWorld, TOKENS, type World } from './support/world';

/**
 * Trunk's clients against a real server: every merge-queue and flaky-tests operation of Trunk's
 * published v1 document (apps/api/src/trunk/contract.json), called with the request shapes that
 * document gives, each answer held against its schema by `poster` (support/trunk-contract.ts).
 */

jest.setTimeout(180_000);

const ORG = 'acme-org';
const KEY = { repo: REPO, targetBranch: 'main' };

let world: World;
let server: RunningProcess;
let admin: ReturnType<typeof client>;
let ci: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;
const seen200 = new Set<string>();

/** A Trunk call: its answer must be a 200 (and fit Trunk's schema: poster checks that). */
const ok = async (who: ReturnType<typeof client>, path: string, body: object) => {
  const res = await who.post(path, body);
  expect([path, res.status, res.body?.error]).toEqual([path, 200, undefined]);
  seen200.add(path.slice(1));
  return res.body;
};

const cart = cartCase;

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { test: SLOW_OR_FAIL_CHECK });
  server = await startEmbedded(world, { RAILYARD_ORG_SLUG: ORG, RAILYARD_TICKET_URL: 'https://tracker.example.org/browse/{id}' });
  admin = client(server.url, TOKENS.admin);
  ci = client(server.url, TOKENS.write);
  reader = client(server.url, TOKENS.read);
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe("Trunk's v1 merge-queue operations", () => {
  it('when a queue is created, updated with every field, read and deleted as Trunk documents them, then each answers 200 in its shape', async () => {
    await ok(admin, '/createQueue', { ...KEY, mode: 'single', concurrency: 1 });
    await ok(admin, '/createQueue', { repo: REPO, targetBranch: 'release' });
    await ok(admin, '/updateQueue', {
      repo: REPO,
      targetBranch: 'release',
      state: 'paused',
      concurrency: 3,
      bisectionConcurrency: 2,
      testingTimeoutMinutes: 60,
      pendingFailureDepth: 1,
      canOptimisticallyMerge: true,
      batch: true,
      batchingMaxWaitTimeMinutes: 2,
      batchingMinSize: 2,
      mode: 'parallel',
      commentsEnabled: false,
      commandsEnabled: false,
      createPrsForTestingBranches: false,
      directMergeMode: 'off',
      optimizationMode: 'bisection_skip_redundant_tests',
      mergeMethod: 'rebase',
      statusCheckEnabled: false,
      requiredStatuses: ['test'],
    });
    await ok(admin, '/updateQueue', { repo: REPO, targetBranch: 'release', deleteRequiredStatuses: true });
    await ok(reader, '/getQueue', { repo: REPO, targetBranch: 'release' });
    await ok(admin, '/deleteQueue', { repo: REPO, targetBranch: 'release' });
  });

  it('when PRs are submitted with each priority form, then getQueue lists them with Trunk’s fields', async () => {
    // Each keeps testing for a minute: no PR merges or fails while the suite looks at it.
    for (const n of [2, 3, 4]) await openPrWithFiles(world, n, { 'slow.txt': `slow ${n}\n` });
    await ok(ci, '/submitPullRequest', { ...KEY, pr: { number: 4 }, priority: 'high', noBatch: true });
    await ok(ci, '/submitPullRequest', { ...KEY, pr: { number: 2 }, priority: 10 });
    await ok(ci, '/submitPullRequest', { ...KEY, pr: { number: 3 }, priority: null });
    const queue = await ok(reader, '/getQueue', KEY);
    const four = (queue.enqueuedPullRequests as Record<string, unknown>[]).find((p) => p.prNumber === 4);
    expect(four).toMatchObject({ prNumber: 4, prBaseBranch: 'main', priorityValue: 10, skipTheLine: false, noBatch: true });
  });

  it('when a PR is read by number and by its head branch, then both answer the same PR', async () => {
    const byNumber = await ok(reader, '/getSubmittedPullRequest', { ...KEY, pr: { number: 3 } });
    const byBranch = await ok(reader, '/getSubmittedPullRequest', { ...KEY, pr: { branch: 'pr-3' } });
    expect(byBranch).toEqual(byNumber);
  });

  it('when impacted targets come as a list, as ALL, and as Trunk’s own uploader sends them, then each is stored', async () => {
    const sha = (await branchSha(world.gitRoot, REPO, 'pr-2')) as string;
    await ok(ci, '/setImpactedTargets', { ...KEY, pr: { number: 2, sha }, impactedTargets: ['//a', '//b'] });
    await ok(ci, '/setImpactedTargets', { ...KEY, pr: { number: 2, sha }, impactedTargets: 'ALL' });
    const upload = await request(server.url)
      .post('/v1/setImpactedTargets')
      .set('x-api-token', TOKENS.write)
      .set('x-forked-workflow-run-id', '')
      .send({ repo: REPO, pr: { number: '2', sha }, targetBranch: 'main', impactedTargets: ['//a'] });
    expect(upload.status).toBe(200);
  });

  it('when a PR is testing, then restart, the testing details and cancel answer in Trunk’s shapes, and a resubmission starts again', async () => {
    const testing = await prReaches(server.url, 4, ['testing']);
    await ok(ci, '/restartTestsOnPullRequest', { ...KEY, pr: { number: 4 } });
    const runId = (testing.lastTestRun as { id: string }).id;
    await ok(reader, '/getMergeQueueTestingDetails', { ...KEY, testRunId: runId });
    await ok(ci, '/cancelPullRequest', { ...KEY, pr: { number: 4 } });
    const again = await ok(ci, '/submitPullRequest', { ...KEY, pr: { number: 4 } });
    expect(again.state).not.toBe('cancelled');
  });

  it('when pull requests are listed, then pages of `take` follow nextCursor to the end, a state filter takes upper case, and since keeps concluded PRs', async () => {
    await ok(ci, '/cancelPullRequest', { ...KEY, pr: { number: 3 } });
    const all: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const body = await ok(reader, '/listPullRequests', { ...KEY, take: 1, ...(cursor ? { cursor } : {}) });
      all.push(...(body.pullRequests as { prNumber: number }[]).map((p) => p.prNumber));
      cursor = body.nextCursor as string | undefined;
      if (!cursor) break;
    }
    expect(all.sort()).toEqual([2, 3, 4]);
    const cancelled = await ok(reader, '/listPullRequests', { ...KEY, state: 'CANCELLED' });
    expect((cancelled.pullRequests as { prNumber: number }[]).map((p) => p.prNumber)).toEqual([3]);
    const concluded = await ok(reader, '/listPullRequests', { ...KEY, since: '2020-01-01T00:00:00Z', take: 100 });
    expect((concluded.pullRequests as { prNumber: number }[]).map((p) => p.prNumber)).toEqual([3]);
    expect(concluded.nextCursor).toBeUndefined();
  });

  it('when the metrics are scraped, then they come as Prometheus text', async () => {
    const res = await request(server.url).get('/v1/getMergeQueueMetrics').set('x-api-token', TOKENS.read);
    checkAgainstTrunk('get', '/v1/getMergeQueueMetrics', undefined, res);
    expect([res.status, res.headers['content-type']]).toEqual([200, expect.stringMatching(/^text\/plain/)]);
    seen200.add('getMergeQueueMetrics');
  });
});

describe("Trunk's v1 flaky-tests operations", () => {
  let testId: string;

  it('when a test fails and passes on one commit, then the unhealthy list shows it without a ticket and the details carry its failure rates', async () => {
    const th = testHealthClient(server.url, TOKENS.write, ORG);
    const sha = shaOf('trunk-flake');
    const upload = (outcome: CaseSpec['outcome'], job: string) =>
      th.post('/uploadTestResults', {
        repo: REPO,
        sha,
        branch: 'feature/cart',
        job,
        prNumber: 7,
        files: [{ name: 'junit.xml', contentBase64: Buffer.from(junitXml([cart('rounds totals', outcome)], 'cart')).toString('base64') }],
      });
    expect((await upload('fail', 'unit-1')).status).toBe(200);
    expect((await upload('pass', 'unit-2')).status).toBe(200);
    const listed = await ok(reader, '/flaky-tests/list-unhealthy-tests', {
      repo: REPO,
      org_url_slug: ORG,
      status: 'FLAKY',
      page_query: { page_size: 10, page_token: '' },
    });
    const test = (listed.tests as Record<string, unknown>[]).find((t) => t.name === 'rounds totals') as Record<string, unknown>;
    expect(test).not.toHaveProperty('ticket');
    testId = test.id as string;
    const details = await ok(reader, '/flaky-tests/get-test-details', { repo: REPO, org_url_slug: ORG, test_id: testId });
    expect(details.test).toMatchObject({ id: testId, failure_rate_last_7d: 0.5, failure_rate_last_24h: 0.5 });
  });

  it('when a ticket is linked by its external id, then the test shows the ticket’s URL', async () => {
    await ok(ci, '/flaky-tests/link-ticket-to-test-case', { repo: REPO, test_case_id: testId, external_ticket_id: 'KAN-123' });
    const details = await ok(reader, '/flaky-tests/get-test-details', { repo: REPO, org_url_slug: ORG, test_id: testId });
    expect(details.test.ticket).toEqual({ html_url: 'https://tracker.example.org/browse/KAN-123' });
  });

  it('when the quarantined and the failing tests are listed, then both answer in Trunk’s shapes', async () => {
    // One PR's flake is not evidence enough to quarantine automatically (docs/test-health.md): an admin does.
    expect((await admin.post('/flaky-tests/set-quarantine', { repo: REPO, testId, quarantine: 'always' })).status).toBe(200);
    const quarantined = await ok(reader, '/flaky-tests/list-quarantined-tests', {
      repo: REPO,
      org_url_slug: ORG,
      page_query: { page_size: 10 },
    });
    expect((quarantined.quarantined_tests as { test_case_id: string }[]).map((t) => t.test_case_id)).toContain(testId);
    const now = Date.now();
    const failing = await ok(reader, '/flaky-tests/list-failing-tests', {
      repo: REPO,
      org_url_slug: ORG,
      start_time: new Date(now - 86_400_000).toISOString(),
      end_time: new Date(now + 60_000).toISOString(),
      page_query: { page_size: 10 },
    });
    expect((failing.tests as { id: string }[]).map((t) => t.id)).toEqual([testId]);
  });

  it('when a CI run is recorded, then it gets a run id', async () => {
    const run = await ok(ci, '/flaky-ci/create-ci-run', {
      repo: REPO,
      org_url_slug: ORG,
      ci_job_name: 'unit',
      provider: 'github',
      run_start: '2026-03-01T09:00:00Z',
      run_end: '2026-03-01T09:05:00Z',
      branch: 'feature/cart',
      sha: shaOf('trunk-flake'),
      attempt: 1,
      run_conclusion: 'failure',
      run_conclusion_cause: 'test',
      providers_run_id: '4242',
    });
    expect(run.run_id).toEqual(expect.any(String));
  });
});

describe('what was held against the contract', () => {
  it('when the suite is done, then every operation of Trunk’s document answered 200 and was checked', () => {
    expect(TRUNK_OPERATION_NAMES.filter((name) => !seen200.has(name))).toEqual([]);
    expect(TRUNK_OPERATION_NAMES.filter((name) => name !== 'getMergeQueueMetrics' && !trunkChecks.get(name))).toEqual([]);
  });

  it('when the suite is done, then every check Trunk’s document gives passed, field by required field', () => {
    const { passed, total, failed } = contractScore();
    // The count compares versions of Railyard against one document (docs/api.md, "Trunk's contract").
    process.stdout.write(`Trunk contract checks: ${passed} of ${total} passed\n`);
    expect(failed).toEqual([]);
  });
});
