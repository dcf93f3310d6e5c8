import request from 'supertest';
import { REPO } from './support/client';
import { configureCi, NO_FAIL_CHECK, openPrWithFile, prReaches, startEmbedded } from './support/engine-world';
import { openApiContract } from './support/openapi-contract';
import type { RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(180_000);

let world: World;
let server: RunningProcess;
let contract: ReturnType<typeof openApiContract>;

const post = async (path: string, body: object) => {
  const res = await request(server.url).post(`/v1${path}`).set('x-api-token', TOKENS.admin).send(body);
  contract.check('post', `/v1${path}`, res);
  return res;
};

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { lint: 'true', test: NO_FAIL_CHECK });
  server = await startEmbedded(world);
  contract = openApiContract((await request(server.url).get('/openapi.json').expect(200)).body);
  expect((await post('/createQueue', { repo: REPO, targetBranch: 'main' })).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('a PR explains its state', () => {
  it('when a PR fails a check, then getSubmittedPullRequest names the failing check, its run and its log URL, which serves the log', async () => {
    await openPrWithFile(world, 1, 'FAIL here\n');
    expect((await post('/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } })).status).toBe(200);
    await prReaches(server.url, 1, ['failed'], 120_000);

    const pr = await post('/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    expect(pr.status).toBe(200);
    const run = pr.body.lastTestRun as { id: string; failedChecks: { name: string; url: string }[] };
    expect(pr.body.stateReason).toMatchObject({
      code: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      message: expect.stringContaining(`check \`test\` failed on run ${run.id}`),
      testRunId: run.id,
    });
    expect(pr.body.waitingOn).toEqual([]);
    expect(pr.body.lastTestRun).toMatchObject({ status: 'failed', testBranch: expect.stringContaining('railyard-merge/pr-1/') });
    expect(run.failedChecks).toEqual([{ name: 'test', state: 'failure', url: `${server.url}/ci/logs/${run.id}/test` }]);
    const log = await request(run.failedChecks[0]!.url).get('').set('x-api-token', TOKENS.read);
    expect(log.status).toBe(200);

    // Asked through another name of the same address, the PR links still share the log links' base.
    const details = await request(server.url)
      .post('/v1/getMergeQueueTestingDetails')
      .set('host', `localhost:${new URL(server.url).port}`)
      .set('x-api-token', TOKENS.read)
      .send({ repo: REPO, targetBranch: 'main', testRunId: run.id });
    expect(details.body.testedPullRequests[0].prUrl).toBe(`${server.url}/repos/git.local/acme/widgets/pulls/1`);
  });

  it('when a PR waits behind another and the queue is paused, then getQueue entries say what each waits on', async () => {
    await openPrWithFile(world, 2, 'fine\n');
    await openPrWithFile(world, 3, 'fine too\n');
    expect((await post('/updateQueue', { repo: REPO, targetBranch: 'main', state: 'paused' })).status).toBe(200);
    await post('/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 2 } });
    await post('/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 3 } });

    const queue = await post('/getQueue', { repo: REPO, targetBranch: 'main' });
    const entries = queue.body.enqueuedPullRequests as { number: number; waitingOn: { kind: string; prNumbers?: number[] }[] }[];
    expect(entries.map((e) => e.number)).toEqual([2, 3]);
    expect(entries[0]?.waitingOn.map((w) => w.kind)).toEqual(['queue_paused']);
    expect(entries[1]?.waitingOn).toEqual([
      expect.objectContaining({ kind: 'queue_paused' }),
      expect.objectContaining({ kind: 'prs_ahead', prNumbers: [2] }),
    ]);

    expect((await post('/updateQueue', { repo: REPO, targetBranch: 'main', state: 'running' })).status).toBe(200);
    const merged = await prReaches(server.url, 3, ['merged'], 120_000);
    expect(merged.stateReason).toMatchObject({
      code: 'MERGE_GRAPH_MERGE',
      message: expect.stringMatching(/^merged after run \S+ passed$/),
    });
  });
});
