import type { RepoRef } from '@railyard/domain';
import { createLogger } from '@railyard/observability';
import { FakeGithub } from '@railyard/testkit';
import request from 'supertest';
import { openGithubApi } from '../github/open';
import { apiBed, type ApiBed } from '../testing/api-bed';
import { FORKED_RUN_HEADER } from './impacted-targets';

jest.setTimeout(60_000);

const REPO = 'acme/widgets';
const repo: RepoRef = { host: 'github.com', owner: 'acme', name: 'widgets' };
const KEY = { repo, targetBranch: 'main' };

let fake: FakeGithub;
let bed: ApiBed;
let forkPr: number;
let ownPr: number;

/** An upload as Trunk's own uploader sends it from a fork: the number as a string, an empty token, the run id. */
const uploadFromFork = (runId: number | string, pr = forkPr, sha?: string) =>
  request(bed.api.app)
    .post('/v1/setImpactedTargets')
    .set('x-api-token', '')
    .set(FORKED_RUN_HEADER, String(runId))
    .send({ ...KEY, pr: { number: String(pr), ...(sha ? { sha } : {}) }, impactedTargets: ['//widgets'] });

const targetEvents = async () =>
  (await bed.eventStore.readAll(null, 10_000))
    .filter((e) => e.type === 'ImpactedTargetsSet')
    .map((e) => ({ ...(e.data as object), actor: e.metadata.actor }));

beforeAll(async () => {
  fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 0 } });
  await fake.createRepo({ repo: REPO, files: { 'README.md': '# widgets\n' } });
  fake.install({ account: 'acme' });
  await fake.forkRepo(REPO, 'mallory');
  await fake.commit({ repo: 'mallory/widgets', branch: 'patch', files: { 'b.txt': 'b\n' } });
  forkPr = (await fake.openPullRequest({ repo: REPO, head: 'patch', headRepo: 'mallory/widgets', title: 'From a fork' })).number;
  await fake.commit({ repo: REPO, branch: 'feature', files: { 'c.txt': 'c\n' } });
  ownPr = (await fake.openPullRequest({ repo: REPO, head: 'feature' })).number;
  const github = await openGithubApi(
    { appId: fake.appId, privateKey: fake.appPrivateKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
    createLogger('test', 'error'),
    { host: 'github.com', app: { writeMinTimeMs: 0, retryAfterUnitMs: 1 } },
  );
  bed = await apiBed({ github });
  expect((await bed.post('/createQueue', KEY)).status).toBe(200);
});

afterAll(async () => {
  await bed?.close();
  await fake?.stop();
});

describe('impacted targets from a forked PR, vouched for by its workflow run', () => {
  it('when GitHub confirms the run is of that PR at its head, then the upload is stored for the head, in the name of the run', async () => {
    const run = fake.ci.startWorkflowRun({ repo: REPO, pr: forkPr });
    const res = await uploadFromFork(run.id);
    expect([res.status, res.body.headSha]).toEqual([200, run.headSha]);
    expect(await targetEvents()).toEqual([
      expect.objectContaining({ prNumber: forkPr, headSha: run.headSha, actor: `github-run:${run.id}` }),
    ]);
  });

  it("when the run is another PR's, the PR moved on since, or the run is unknown, then 401 FORKED_RUN_NOT_VERIFIED and nothing is stored", async () => {
    const before = (await targetEvents()).length;
    const other = fake.ci.startWorkflowRun({ repo: REPO, pr: ownPr });
    const stale = fake.ci.startWorkflowRun({ repo: REPO, pr: forkPr });
    await fake.commit({ repo: 'mallory/widgets', branch: 'patch', files: { 'b.txt': 'b2\n' } });
    const fresh = fake.ci.startWorkflowRun({ repo: REPO, pr: forkPr });
    const pushed = fake.ci.startWorkflowRun({ repo: REPO, pr: forkPr, event: 'push' });
    for (const [runId, sha, why] of [
      [other.id, undefined, `ran ${other.headSha}`],
      [stale.id, undefined, `ran ${stale.headSha}`],
      [999_999, undefined, 'has no workflow run'],
      [pushed.id, undefined, 'not by a pull request'],
      [fresh.id, stale.headSha, 'not pr.sha'],
      ['run-7', undefined, 'must be a workflow run id'],
    ] as const) {
      const res = await uploadFromFork(runId, forkPr, sha);
      expect([runId, res.status, res.body.error.code]).toEqual([runId, 401, 'FORKED_RUN_NOT_VERIFIED']);
      expect(res.body.error.message).toContain(why);
    }
    expect(await targetEvents()).toHaveLength(before);
    expect((await uploadFromFork(fresh.id)).status).toBe(200);
  });

  it('when neither a token nor a run id comes, then 401 AUTHENTICATION_REQUIRED', async () => {
    const res = await request(bed.api.app)
      .post('/v1/setImpactedTargets')
      .send({ ...KEY, pr: { number: forkPr }, impactedTargets: 'ALL' });
    expect([res.status, res.body.error.code]).toEqual([401, 'AUTHENTICATION_REQUIRED']);
  });
});

describe('a server without a GitHub App', () => {
  it('when an upload comes with a run id and no token, then 401 says the run cannot be looked up', async () => {
    const local = await apiBed();
    try {
      const res = await request(local.api.app)
        .post('/v1/setImpactedTargets')
        .set(FORKED_RUN_HEADER, '42')
        .send({ repo, targetBranch: 'main', pr: { number: 1 }, impactedTargets: ['//x'] });
      expect([res.status, res.body.error.code]).toEqual([401, 'FORKED_RUN_NOT_VERIFIED']);
      expect(res.body.error.message).toContain('send x-api-token');
    } finally {
      await local.close();
    }
  });
});
