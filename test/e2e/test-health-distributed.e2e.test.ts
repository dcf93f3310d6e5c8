import path from 'node:path';
import { REPO } from './support/client';
import { shaOf, testHealthClient } from './support/junit';
import { startProcess, type RunningProcess } from './support/processes';
import { dropNamespace, REDIS_URL, uniqueNamespace } from './support/redis';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);

const ORG = 'railyard';
const namespace = uniqueNamespace('th-dist');
let world: World;
const running: RunningProcess[] = [];

beforeAll(async () => {
  world = await makeWorld();
  const env = {
    ...world.env,
    RAILYARD_REDIS_URL: REDIS_URL,
    RAILYARD_REDIS_NAMESPACE: namespace,
    RAILYARD_SQLITE_FILE: path.join(world.dataDir, 'events.sqlite'),
    RAILYARD_PAGE_TOKEN_SECRET: 'shared-by-every-replica-0123456789',
  };
  running.push(await startProcess('apps/projector/src/main.ts', env, { listens: false, ready: /"message":"projector subscribing"/ }));
  running.push(await startProcess('apps/api/src/main.ts', env), await startProcess('apps/api/src/main.ts', env));
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await dropNamespace(namespace);
  await world?.cleanup();
});

describe('test health in the distributed shape: API replicas and a projector process over Redis', () => {
  it('when one replica records a large upload, then the projector folds its blob and the other replica lists the result with the same page tokens', async () => {
    // given 600 cases: their record is far over the inline limit, so it travels as a blob in Redis
    const [a, b] = [
      testHealthClient(running[1]?.url as string, TOKENS.admin, ORG),
      testHealthClient(running[2]?.url as string, TOKENS.read, ORG),
    ];
    const names = Array.from({ length: 600 }, (_, i) => `case ${String(i).padStart(3, '0')}`);
    const sha = shaOf('dist');
    const failing = new Set(names.slice(0, 30));

    // when the same commit is tested twice, the 30 failures passing the second time
    const first = await a.uploadCases(
      names.map((name) => ({ name, outcome: failing.has(name) ? ('fail' as const) : ('pass' as const) })),
      { sha, job: 'one' },
      'big',
    );
    const second = await a.uploadCases(
      names.map((name) => ({ name, outcome: 'pass' as const })),
      { sha, job: 'two' },
      'big',
    );

    // then
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ caseCount: 600, failedCount: 30 });
    expect(second.body.statusChanges).toBe(30);
    const page1 = await b.unhealthy('FLAKY', { page_size: 20 });
    expect(page1.status).toBe(200);
    expect(page1.body.page).toMatchObject({ total_rows: 30, total_pages: 2, page_index: 1 });
    const page2 = await a.unhealthy('FLAKY', { page_size: 20, page_token: page1.body.page.next_page_token });
    expect(page2.body.page).toMatchObject({ page_index: 2, next_page_token: '' });
    expect(new Set([...page1.body.tests, ...page2.body.tests].map((t: { name: string }) => t.name))).toEqual(failing);
    expect((await b.quarantined({ page_size: 100 })).body.page.total_rows).toBe(30);
  });

  it('when an override is set through one replica, then the CI check on the other sees it at once', async () => {
    const [a, b] = [
      testHealthClient(running[1]?.url as string, TOKENS.admin, ORG),
      testHealthClient(running[2]?.url as string, TOKENS.read, ORG),
    ];
    const test = (await b.unhealthy('FLAKY', { page_size: 5 })).body.tests.find((t: { name: string }) => t.name !== 'case 001');

    expect((await a.setQuarantine(test.id, 'never')).body).toMatchObject({ quarantined: false });
    expect((await b.check([{ testId: test.id }])).body).toMatchObject({ allQuarantined: false, notQuarantined: [{ testId: test.id }] });
    expect(
      (
        await b.post('/flaky-tests/check-failures', {
          repo: REPO,
          failures: [{ name: 'case 001', classname: 'big', parent: 'big', file: 'src/big.test.ts' }],
        })
      ).body.allQuarantined,
    ).toBe(true);
  });
});
