import { parseScrape } from '@railyard/testkit';
import request from 'supertest';
import {
  NO_FAIL_CHECK,
  REPO,
  TOKENS,
  client,
  configureCi,
  makeWorld,
  openPrWithFile,
  prReaches,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(120_000);

let world: World;
let server: RunningProcess;

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: NO_FAIL_CHECK });
  server = await startEmbedded(world);
  expect((await client(server.url, TOKENS.admin).createQueue({ concurrency: 1 })).status).toBe(200);
  await openPrWithFile(world, 1, 'one\n');
  await openPrWithFile(world, 2, 'FAIL\n');
  const ci = client(server.url, TOKENS.write);
  expect((await ci.submit(1)).status).toBe(200);
  expect((await prReaches(server.url, 1, ['merged', 'failed', 'cancelled'])).state).toBe('merged');
  expect((await ci.submit(2)).status).toBe(200);
  expect((await prReaches(server.url, 2, ['merged', 'failed', 'cancelled'])).state).toBe('failed');
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('metrics and history of a queue the real engine drove', () => {
  it('when one PR merged and one failed, then the scrape counts both, their test runs and their durations', async () => {
    const res = await request(server.url).get('/v1/getMergeQueueMetrics').set('x-api-token', TOKENS.read);
    const s = await parseScrape(res.text);
    const main = { repo: `${REPO.owner}/${REPO.name}`, branch: 'main', queue_type: 'main' };
    expect(s.value('mq_pr_conclusions_1h_total', { ...main, conclusion: 'merged' })).toBe(1);
    expect(s.value('mq_pr_conclusions_1h_total', { ...main, conclusion: 'failed' })).toBe(1);
    expect(s.value('mq_depth_current', main)).toBe(0);
    expect(s.value('mq_testing_slots_active', main)).toBe(0);
    // PR 2's failure, with no test results, was re-run once on the same commit before it was blamed
    // (flakeRetries defaults to 1, docs/engine.md "Flakes"): two test runs, two waits for PR 2.
    expect(s.histogram('mq_pr_test_duration_1h_seconds', main).count).toBe(3);
    expect(s.histogram('mq_pr_wait_duration_1h_seconds', main).count).toBe(3);
    expect(s.histogram('mq_pr_time_in_queue_1h_seconds', { ...main, conclusion: 'merged' }).count).toBe(1);
    expect(s.value('railyard_test_runs_total', main)).toBe(3);
    expect(s.value('railyard_flake_retries_total', main)).toBe(1);
    expect(s.histogram('railyard_flake_retries_per_merged_pr', main)).toMatchObject({ count: 1, sum: 0 });
    expect(s.histogram('railyard_ci_runs_per_merged_pr', main)).toMatchObject({ count: 1, sum: 1 });
    expect(s.value('railyard_innocent_ejections_total', main)).toBe(0);
    // The embedded engine times what it does: at least the runs it started and the merge.
    expect(s.histogram('railyard_engine_action_duration_seconds', { action: 'startRun', outcome: 'ok' }).count).toBeGreaterThanOrEqual(2);
    expect(s.histogram('railyard_engine_action_duration_seconds', { action: 'merge', outcome: 'ok' }).count).toBeGreaterThanOrEqual(1);
  });

  it('when the history is read, then the engine appears as the actor of the test runs, the merge and the failure, with reasons', async () => {
    const res = await client(server.url, TOKENS.read).post('/getQueueHistory', {
      repo: REPO,
      targetBranch: 'main',
      page_query: { page_size: 1000 },
    });
    expect(res.status).toBe(200);
    const events = res.body.events as { type: string; actor: string; reason: string | null; prNumber?: number }[];
    expect(events.filter((e) => e.type === 'TestRunStarted').every((e) => e.actor === 'engine')).toBe(true);
    expect(events.find((e) => e.type === 'PrMerged')).toMatchObject({ actor: 'engine', prNumber: 1, reason: 'MERGE_GRAPH_MERGE' });
    expect(events.find((e) => e.type === 'PrFailed')).toMatchObject({
      actor: 'engine',
      prNumber: 2,
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
    });
  });
});
