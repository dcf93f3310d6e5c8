import path from 'node:path';
import { createLogger } from '@railyard/observability';
import { startServer, type RunningServer } from '@railyard/server';
import { REPO } from './support/client';
import { shaOf, testHealthClient, type CaseSpec } from './support/junit';
import { makeWorld, TOKEN_ENV, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);

const ORG = 'railyard';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-03-02T08:00:00.000Z');

let world: World;
let server: RunningServer;
let now = T0;
const saved = { ...process.env };

const api = () => testHealthClient(server.url, TOKENS.admin, ORG);
const at = (ms: number) => new Date(ms).toISOString();
const reclassify = () => api().post('/flaky-tests/reclassify', { repo: REPO });
const find = async (status: string, name: string) =>
  (await api().unhealthy(status, { page_size: 100 })).body.tests.find((t: { name: string }) => t.name === name) as
    { id: string; status: { reason: string; timestamp: string }; pull_requests_impacted_last_7d: number } | undefined;

beforeAll(async () => {
  world = await makeWorld();
  // The clock is this test's: the engine stays off, the periodic sweep too (reclassify runs the same pass on demand).
  process.env.RAILYARD_ENGINE = 'off';
  process.env.RAILYARD_TEST_HEALTH_SWEEP_MINUTES = '0';
  server = await startServer(
    {
      port: 0,
      dataDir: world.dataDir,
      gitRoot: world.gitRoot,
      apiTokens: TOKEN_ENV,
      eventStore: { kind: 'sqlite', file: path.join(world.dataDir, 'events.sqlite'), synchronous: 'normal' },
    },
    { logger: createLogger('test', 'error'), clock: { now: () => new Date(now) } },
  );
});

afterAll(async () => {
  await server?.close();
  process.env = saved;
  await world?.cleanup();
});

describe('time-based recovery and impact, computed by the sweep from the history', () => {
  const flaky = (outcome: CaseSpec['outcome']): CaseSpec => ({ name: 'sometimes', outcome, file: 'src/clock.test.ts' });

  it('when a test flaked, then it stays FLAKY and quarantined until 7 days pass with 10 passes since, then recovers without a new upload, and its PR impact ages out', async () => {
    // given a pass and a fail on one commit at T0, and a failure on pull request 9
    const sha = shaOf('recover');
    await api().uploadCases(
      [flaky('fail'), { name: 'on a pr', outcome: 'fail', file: 'src/pr.test.ts' }],
      { sha: shaOf('pr-9'), branch: 'feature/nine', pr: 9, job: 'unit' },
      'clock',
    );
    await api().uploadCases([flaky('fail')], { sha, job: 'unit' }, 'clock');
    now += 5 * 60_000;
    await api().uploadCases([flaky('pass')], { sha, job: 'unit-retry' }, 'clock');
    const detectedAt = at(now);
    const flagged = await find('FLAKY', 'sometimes');
    expect(flagged).toMatchObject({ status: { timestamp: detectedAt }, pull_requests_impacted_last_7d: 1 });
    const onPr = (await api().check([{ name: 'on a pr', classname: 'clock', parent: 'clock', file: 'src/pr.test.ts' }])).body
      .notQuarantined[0].testId as string;
    expect((await api().details(onPr)).body.test.pull_requests_impacted_last_7d).toBe(1);

    // and ten clean runs on main over the next hours
    for (let i = 1; i <= 10; i += 1) {
      now = T0 + i * HOUR;
      expect((await api().uploadCases([flaky('pass')], { sha: shaOf(`clean-${i}`), job: 'unit' }, 'clock')).status).toBe(200);
    }

    // when six days have passed: still flaky
    now = Date.parse(detectedAt) + 6 * DAY;
    expect((await reclassify()).status).toBe(200);
    expect(await find('FLAKY', 'sometimes')).toBeDefined();
    expect((await api().check([{ testId: flagged?.id }])).body.allQuarantined).toBe(true);
    expect((await api().details(onPr)).body.test.pull_requests_impacted_last_7d).toBe(1);

    // when the seventh day is over
    now = Date.parse(detectedAt) + 7 * DAY + HOUR;
    const swept = await reclassify();

    // then it is healthy again, since the recovery deadline, and no longer quarantined
    expect(swept.body.changed).toBeGreaterThanOrEqual(1);
    expect(await find('FLAKY', 'sometimes')).toBeUndefined();
    const details = (await api().details(flagged?.id as string)).body.test;
    expect(details).toMatchObject({
      status: { value: 'healthy', reason: 'healthy: pass_on_retry resolved', timestamp: at(Date.parse(detectedAt) + 7 * DAY) },
      quarantined: false,
      quarantined_at: null,
    });
    expect((await api().check([{ testId: flagged?.id }])).body.allQuarantined).toBe(false);
    // and the failure on pull request 9 has left the 7-day window
    expect((await api().details(onPr)).body.test.pull_requests_impacted_last_7d).toBe(0);
  });

  it('when a sweep finds nothing changed, then it records nothing', async () => {
    const swept = await reclassify();

    expect(swept.status).toBe(200);
    expect(swept.body.changed).toBe(0);
  });

  it('when a token without admin scope asks for a re-classification, then 403', async () => {
    expect((await testHealthClient(server.url, TOKENS.write, ORG).post('/flaky-tests/reclassify', { repo: REPO })).status).toBe(403);
  });
});
