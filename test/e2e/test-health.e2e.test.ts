import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { commitOnBranch } from '@railyard/testkit';
import { REPO } from './support/client';
import { junitXml, shaOf, testHealthClient, type CaseSpec } from './support/junit';
import { RAILYARD_BIN, ROOT, startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);
const run = promisify(execFile);

const ORG = 'acme-org';
const FIXTURES = path.join(ROOT, 'libs/testhealth/fixtures');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

let world: World;
let server: RunningProcess;
let env: NodeJS.ProcessEnv;

const start = async () => {
  server = await startProcess('apps/server/src/main.ts', env);
  return server;
};
const api = (token = TOKENS.admin) => testHealthClient(server.url, token, ORG);

/** Events on the test-health streams, read straight from the server's SQLite file (a second reader is fine in WAL mode). */
const testHealthEventCount = (): number => {
  const db = new Database(path.join(world.dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM events WHERE stream_id LIKE 'tests-%'").get() as { n: number }).n;
  } finally {
    db.close();
  }
};

const cli = async (args: string[]) => {
  try {
    const { stdout, stderr } = await run(process.execPath, [RAILYARD_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, RAILYARD_API_URL: server.url, RAILYARD_API_TOKEN: TOKENS.admin, RAILYARD_ORG_SLUG: ORG },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};

beforeAll(async () => {
  world = await makeWorld();
  await commitOnBranch(world.gitRoot, REPO, {
    branch: 'main',
    files: { '.github/CODEOWNERS': '* @acme/everyone\nsrc/cart/ @acme/cart\n' },
    message: 'Add owners',
  });
  env = { ...world.env, RAILYARD_ORG_SLUG: ORG };
  await start();
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('test results in: every JUnit shape, both body forms', () => {
  it.each([
    ['jest-junit.xml', 4, 1],
    ['pytest-xunit1.xml', 6, 2],
    ['pytest-xunit2.xml', 2, 0],
    ['surefire-reruns.xml', 5, 1],
    ['gradle-unmerged-reruns.xml', 2, 0],
    ['gotestsum-rerun.xml', 5, 1],
    ['bazel-generated.xml', 1, 1],
    ['bazel-notrun.xml', 2, 0],
    ['nested-suites.xml', 3, 0],
  ])('when %s is posted as application/xml, then it is recorded with its cases and failures', async (name, cases, failed) => {
    // A branch no monitor treats as protected: these reports' failures must not make tests broken.
    const res = await api().uploadXml(fixture(name), { sha: shaOf(`shape-${name}`), job: 'shapes', branch: 'ci/shapes' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ caseCount: cases, failedCount: failed, files: 1, branch: 'ci/shapes', repo: REPO });
    expect(res.body.uploadId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when a report is posted gzip-compressed, then it is read like the plain one', async () => {
    const res = await api().uploadXml(
      gzipSync(fixture('jest-junit.xml')),
      { sha: shaOf('gzip'), job: 'gzip', branch: 'ci/shapes' },
      'application/gzip',
    );

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ caseCount: 4, failedCount: 1 });
  });

  it('when the metadata comes in x-railyard headers and the body is text/xml, then it is accepted', async () => {
    const res = await testHealthClient(server.url, TOKENS.write, ORG)
      .raw('/uploadTestResults')
      .set('content-type', 'text/xml')
      .set('x-railyard-repo', `${REPO.host}/${REPO.owner}/${REPO.name}`)
      .set('x-railyard-sha', shaOf('headers'))
      .set('x-railyard-branch', 'feature/headers')
      .set('x-railyard-pr', '12')
      .send(junitXml([{ name: 'header case', outcome: 'pass' }]));

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ branch: 'feature/headers', caseCount: 1 });
  });

  it('when the JSON form carries several files, then they are recorded as one upload', async () => {
    const res = await api().post('/uploadTestResults', {
      repo: `${REPO.host}/${REPO.owner}/${REPO.name}`,
      sha: shaOf('json-form'),
      branch: 'ci/shapes',
      job: 'matrix',
      files: [
        { name: 'a.xml', contentBase64: fixture('jest-junit.xml').toString('base64') },
        { name: 'b.xml.gz', contentBase64: gzipSync(fixture('pytest-xunit1.xml')).toString('base64') },
      ],
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ files: 2, caseCount: 10, failedCount: 3 });
  });
});

describe('bad uploads are refused and nothing is stored', () => {
  const sha = shaOf('refused');
  const refusals: [string, () => ReturnType<ReturnType<typeof api>['post']>, number, string][] = [
    ['billion laughs', () => api().uploadXml(fixture('billion-laughs.xml'), { sha }), 400, 'ENTITIES_NOT_ALLOWED'],
    ['an external entity', () => api().uploadXml(fixture('external-entity.xml'), { sha }), 400, 'ENTITIES_NOT_ALLOWED'],
    ['malformed XML', () => api().uploadXml(fixture('malformed.xml'), { sha }), 400, 'MALFORMED'],
    ['not JUnit', () => api().uploadXml(fixture('not-junit.xml'), { sha }), 400, 'NOT_JUNIT'],
    ['a body over 20 MiB', () => api().uploadXml(Buffer.alloc(21 * 1024 * 1024, 0x20), { sha }), 413, 'PAYLOAD_TOO_LARGE'],
    [
      'a gzip that inflates past 20 MiB',
      () =>
        api().uploadXml(
          gzipSync(
            Buffer.concat([Buffer.from('<testsuite name="bomb">'), Buffer.alloc(25 * 1024 * 1024, 0x20), Buffer.from('</testsuite>')]),
          ),
          { sha },
          'application/gzip',
        ),
      413,
      'TOO_LARGE',
    ],
    ['a wrong content type', () => api().uploadXml(fixture('jest-junit.xml'), { sha }, 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a short sha', () => api().uploadXml(fixture('jest-junit.xml'), { sha: 'abc123' }), 400, 'VALIDATION_FAILED'],
    ['an invalid branch', () => api().uploadXml(fixture('jest-junit.xml'), { sha, branch: 'a..b' }), 400, 'VALIDATION_FAILED'],
    [
      'missing metadata',
      () => api().raw('/uploadTestResults').set('content-type', 'application/xml').send(fixture('jest-junit.xml')),
      400,
      'VALIDATION_FAILED',
    ],
    [
      'bad base64',
      () => api().post('/uploadTestResults', { repo: REPO, sha, branch: 'main', files: [{ name: 'x.xml', contentBase64: '@@@' }] }),
      400,
      'VALIDATION_FAILED',
    ],
    [
      'an unknown field',
      () => api().post('/uploadTestResults', { repo: REPO, sha, branch: 'main', files: [], extra: 1 }),
      400,
      'VALIDATION_FAILED',
    ],
    [
      'an unknown repository',
      () =>
        api().post('/uploadTestResults', {
          repo: { ...REPO, name: 'nope' },
          sha,
          branch: 'main',
          files: [{ name: 'x.xml', contentBase64: fixture('jest-junit.xml').toString('base64') }],
        }),
      404,
      'REPO_NOT_FOUND',
    ],
  ];

  it.each(refusals)('when the upload is %s, then it answers the error and records no event', async (_label, send, status, code) => {
    const before = testHealthEventCount();

    const res = await send();

    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code });
    expect(typeof res.body.error.message).toBe('string');
    expect(testHealthEventCount()).toBe(before);
  });

  it('when the token is read-only or missing, then uploads are refused before the body is read', async () => {
    expect((await testHealthClient(server.url, TOKENS.read, ORG).uploadXml(fixture('jest-junit.xml'), { sha })).status).toBe(403);
    expect((await testHealthClient(server.url, 'nope-nope-nope-nope', ORG).uploadXml(fixture('jest-junit.xml'), { sha })).status).toBe(401);
  });
});

describe('a scripted history: flaky and broken tests, quarantine, the CI check', () => {
  const cart = (name: string, outcome: CaseSpec['outcome']): CaseSpec => ({
    name,
    outcome,
    file: 'src/cart/totals.test.ts',
    classname: 'cart',
  });
  let flakyId: string;
  let brokenId: string;
  let healthyId: string;

  it('when a test fails and passes on the same commit, then it is listed FLAKY, owned per CODEOWNERS, and auto-quarantined', async () => {
    // given one commit tested twice, in two jobs
    const sha = shaOf('flake');
    expect(
      (
        await api().uploadCases(
          [cart('rounds totals', 'fail'), cart('adds items', 'pass')],
          { sha, job: 'unit-1', pr: 7, branch: 'feature/cart' },
          'cart',
        )
      ).status,
    ).toBe(200);

    // when the retry passes
    const res = await api().uploadCases(
      [cart('rounds totals', 'pass'), cart('adds items', 'pass')],
      { sha, job: 'unit-2', pr: 7, branch: 'feature/cart' },
      'cart',
    );
    expect(res.body.statusChanges).toBeGreaterThanOrEqual(1);
    // and main shows it too: one pull request's runs alone never quarantine a test (docs/test-health.md §4)
    const onMain = shaOf('flake-on-main');
    for (const [job, outcome] of [
      ['unit-1', 'fail'],
      ['unit-2', 'pass'],
    ] as const)
      expect((await api().uploadCases([cart('rounds totals', outcome)], { sha: onMain, job, branch: 'main' }, 'cart')).status).toBe(200);

    // then
    const list = await api().unhealthy('FLAKY', { page_size: 10 });
    expect(list.status).toBe(200);
    const test = list.body.tests.find((t: { name: string }) => t.name === 'rounds totals');
    flakyId = test.id;
    expect(test).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      repository: { html_url: `${server.url}/repos/git.local/acme/widgets` },
      html_url: `${server.url}/repos/git.local/acme/widgets/tests/${test.id}`,
      name: 'rounds totals',
      variant: '',
      status: { value: 'flaky', reason: expect.stringMatching(/^pass_on_retry: /), timestamp: expect.any(String) },
      codeowners: ['@acme/cart'],
      pull_requests_impacted_last_7d: 1,
      quarantined: true,
      file_path: 'src/cart/totals.test.ts',
      parent: 'cart',
      classname: 'cart',
    });
    const quarantined = await api().quarantined({ page_size: 10 });
    expect(quarantined.body.quarantined_tests).toContainEqual({
      name: 'rounds totals',
      parent: 'cart',
      file: 'src/cart/totals.test.ts',
      classname: 'cart',
      status: 'FLAKY',
      codeowners: ['@acme/cart'],
      quarantine_setting: 'AUTO_QUARANTINE',
      quarantined_at: expect.any(String),
      status_last_updated_at: expect.any(String),
      test_case_id: flakyId,
      variant: '',
    });
  });

  it('when a test fails on three commits of main in a row, then it is listed BROKEN and not quarantined', async () => {
    for (const n of [1, 2, 3]) {
      const res = await api().uploadCases(
        [
          { name: 'charges card', outcome: 'fail', file: 'src/pay/card.test.ts' },
          { name: 'refunds', outcome: 'pass', file: 'src/pay/card.test.ts' },
        ],
        { sha: shaOf(`main-${n}`), job: 'unit' },
        'pay',
      );
      expect(res.status).toBe(200);
    }

    const list = await api().unhealthy('broken', { page_size: 10 });

    expect(list.body.tests).toHaveLength(1);
    const [test] = list.body.tests;
    brokenId = test.id;
    expect(test).toMatchObject({
      name: 'charges card',
      status: { value: 'broken' },
      quarantined: false,
      codeowners: ['@acme/everyone'],
      pull_requests_impacted_last_7d: 0,
    });
    expect(test.status.reason).toMatch(/^(consecutive_failures|broken_rate): /);
    expect(
      (await api().quarantined({ page_size: 100 })).body.quarantined_tests.map((t: { test_case_id: string }) => t.test_case_id),
    ).not.toContain(brokenId);
    healthyId = (await api().check([{ name: 'refunds', classname: 'pay', parent: 'pay', file: 'src/pay/card.test.ts' }])).body
      .notQuarantined[0].testId;
  });

  it('when CI asks about its failures, then it learns whether every one is quarantined', async () => {
    const flakyByName = { name: 'rounds totals', classname: 'cart', parent: 'cart', file: './src/cart/totals.test.ts' };

    const onlyFlaky = await api(TOKENS.read).check([flakyByName]);
    const mixed = await api(TOKENS.read).check([flakyByName, { testId: brokenId }]);
    const unknown = await api(TOKENS.read).check([{ name: 'never uploaded' }]);
    const none = await api(TOKENS.read).check([]);

    expect(onlyFlaky.status).toBe(200);
    expect(onlyFlaky.body).toMatchObject({
      allQuarantined: true,
      quarantined: [{ testId: flakyId, name: 'rounds totals', quarantine_setting: 'AUTO_QUARANTINE' }],
      notQuarantined: [],
    });
    expect(mixed.body).toMatchObject({
      allQuarantined: false,
      quarantined: [{ testId: flakyId }],
      notQuarantined: [{ testId: brokenId, status: 'BROKEN' }],
    });
    expect(unknown.body).toMatchObject({ allQuarantined: false, quarantined: [], notQuarantined: [{ known: false }] });
    expect(none.body).toEqual({ allQuarantined: false, quarantined: [], notQuarantined: [] });
  });

  it('when an admin overrides quarantine both ways, then never lifts it from a flaky test, always puts a healthy one in, and auto restores both', async () => {
    // never on the flaky test
    const never = await api().setQuarantine(flakyId, 'NEVER');
    expect(never.status).toBe(200);
    expect(never.body).toMatchObject({ testId: flakyId, quarantine: 'never', quarantined: false, status: 'FLAKY' });
    expect((await api().check([{ testId: flakyId }])).body.allQuarantined).toBe(false);

    // always on a healthy test, through the CLI
    const always = await cli([
      'quarantine',
      'set',
      '--repo',
      'git.local/acme/widgets',
      '--test-id',
      healthyId,
      '--mode',
      'always',
      '--reason',
      'noisy on CI',
    ]);
    expect(always.code).toBe(0);
    expect(JSON.parse(always.stdout)).toMatchObject({ testId: healthyId, quarantine: 'always', quarantined: true, status: 'HEALTHY' });
    const listed = await api().quarantined({ page_size: 100 });
    const settings = listed.body.quarantined_tests.map((t: { test_case_id: string; quarantine_setting: string }) => [
      t.test_case_id,
      t.quarantine_setting,
    ]);
    expect(settings).toContainEqual([healthyId, 'ALWAYS_QUARANTINE']);
    expect(settings.map(([id]: string[]) => id)).not.toContain(flakyId);

    // auto for both
    expect((await api().setQuarantine(flakyId, 'auto')).body).toMatchObject({ quarantine: 'auto', quarantined: true });

    // Uploads by another token than the one the repository names do not count as evidence; --anyone restores them.
    const pinned = await cli(['quarantine', 'reporters', '--repo', 'git.local/acme/widgets', '--set', 'outside-ci']);
    expect(pinned.code).toBe(0);
    expect(JSON.parse(pinned.stdout)).toMatchObject({ reporters: ['outside-ci'] });
    expect((await api().check([{ testId: flakyId }])).body.allQuarantined).toBe(false);
    const shown = await cli(['quarantine', 'reporters', '--repo', 'git.local/acme/widgets']);
    expect(JSON.parse(shown.stdout)).toEqual({ reporters: ['outside-ci'] });
    expect((await cli(['quarantine', 'reporters', '--repo', 'git.local/acme/widgets', '--anyone'])).code).toBe(0);
    expect((await api().check([{ testId: flakyId }])).body.allQuarantined).toBe(true);
    expect((await api().setQuarantine(healthyId, 'auto')).body).toMatchObject({ quarantine: 'auto', quarantined: false });
    expect((await api().check([{ testId: flakyId }, { testId: healthyId }])).body).toMatchObject({
      allQuarantined: false,
      quarantined: [{ testId: flakyId }],
      notQuarantined: [{ testId: healthyId }],
    });
  });

  it('when the same override is set twice, then the second records nothing', async () => {
    await api().setQuarantine(brokenId, 'always');
    const before = testHealthEventCount();

    expect((await api().setQuarantine(brokenId, 'always')).status).toBe(200);

    expect(testHealthEventCount()).toBe(before);
    await api().setQuarantine(brokenId, 'auto');
  });

  it('when overrides are asked for wrongly, then clear errors change nothing', async () => {
    const before = testHealthEventCount();

    expect((await api(TOKENS.write).setQuarantine(flakyId, 'always')).status).toBe(403);
    expect((await api().setQuarantine('6ba7b811-9dad-51d1-80b4-00c04fd430c8', 'always')).body.error.code).toBe('TEST_NOT_FOUND');
    expect((await api().setQuarantine('not-a-uuid', 'always')).body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      fields: [{ field: 'testId' }],
    });
    expect((await api().setQuarantine(flakyId, 'sometimes')).status).toBe(400);

    expect(testHealthEventCount()).toBe(before);
  });

  it('when the CLI checks a failed job whose only failure is quarantined, then it exits 0; with a broken one too, then 1', async () => {
    const dir = world.dataDir;
    const flakyOnly = path.join(dir, 'flaky-only.xml');
    const withBroken = path.join(dir, 'with-broken.xml');
    writeFileSync(flakyOnly, junitXml([cart('rounds totals', 'fail'), cart('adds items', 'pass')], 'cart'));
    writeFileSync(withBroken, junitXml([{ name: 'charges card', outcome: 'fail', file: 'src/pay/card.test.ts' }], 'pay'));

    const ok = await cli(['tests', 'check', '--repo', 'git.local/acme/widgets', flakyOnly]);
    const blocked = await cli(['tests', 'check', '--repo', 'git.local/acme/widgets', flakyOnly, withBroken]);

    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ allQuarantined: true });
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('charges card');
  });

  it('when the CLI uploads reports through the API, then they are recorded and listed', async () => {
    const file = path.join(world.dataDir, 'cli-report.xml');
    writeFileSync(file, junitXml([{ name: 'from the cli', outcome: 'pass' }], 'cli'));

    const up = await cli([
      'tests',
      'upload',
      '--repo',
      'git.local/acme/widgets',
      '--sha',
      shaOf('cli'),
      '--branch',
      'main',
      '--job',
      'cli',
      file,
    ]);
    const listed = await cli(['tests', 'list', '--repo', 'git.local/acme/widgets', '--status', 'flaky']);
    const bad = await cli([
      'tests',
      'upload',
      '--repo',
      'git.local/acme/widgets',
      '--sha',
      shaOf('cli'),
      '--branch',
      'main',
      path.join(FIXTURES, 'billion-laughs.xml'),
    ]);

    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ caseCount: 1, files: 1 });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((t: { id: string }) => t.id)).toContain(flakyId);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('ENTITIES_NOT_ALLOWED');
  });

  it('when the server restarts, then the test-health models are rebuilt from the events alone', async () => {
    // The restarted server listens on another port, so its links differ; everything else must not.
    const withoutLinks = (body: { tests: object[] }) => ({
      ...body,
      tests: body.tests.map((t) => ({ ...t, html_url: undefined, repository: undefined })),
    });
    const before = withoutLinks((await api().unhealthy('FLAKY', { page_size: 100 })).body);
    const quarantinedBefore = (await api().quarantined({ page_size: 100 })).body;

    await server.stop();
    await start();

    expect(withoutLinks((await api().unhealthy('FLAKY', { page_size: 100 })).body)).toEqual(before);
    expect((await api().quarantined({ page_size: 100 })).body).toEqual(quarantinedBefore);
  });
});

describe('paging', () => {
  it('when many flaky tests are paged through while new ones land between fetches, then every original test is seen exactly once', async () => {
    // given 23 more flaky tests: failed then passed on one commit
    const names = Array.from({ length: 23 }, (_, i) => `paged ${String(i).padStart(2, '0')}`);
    const sha = shaOf('paging');
    // Stable tests ride along: an upload where nearly everything failed reads as an outage and proves nothing.
    const stable = Array.from({ length: 10 }, (_, i) => ({ name: `stable ${i}`, outcome: 'pass' as const }));
    await api().uploadCases([...names.map((n) => ({ name: n, outcome: 'fail' as const })), ...stable], { sha, job: 'a' }, 'paging');
    await api().uploadCases(
      names.map((n) => ({ name: n, outcome: 'pass' as const })),
      { sha, job: 'b' },
      'paging',
    );
    const original = (await api().unhealthy('FLAKY', { page_size: 100 })).body.tests.map((t: { id: string }) => t.id);
    expect(original.length).toBeGreaterThanOrEqual(24);

    // when
    const seen: string[] = [];
    let page = (await api().unhealthy('FLAKY', { page_size: 7, page_token: '' })).body;
    seen.push(...page.tests.map((t: { id: string }) => t.id));
    expect(page.page).toMatchObject({
      total_rows: original.length,
      total_pages: Math.ceil(original.length / 7),
      page_index: 1,
      prev_page_token: '',
    });
    let round = 0;
    while (page.page.next_page_token !== '') {
      round += 1;
      const fresh = [`inserted ${round}a`, `inserted ${round}b`];
      const freshSha = shaOf(`insert-${round}`);
      await api().uploadCases(
        fresh.map((n) => ({ name: n, outcome: 'fail' as const })),
        { sha: freshSha, job: 'a' },
        'paging',
      );
      await api().uploadCases(
        fresh.map((n) => ({ name: n, outcome: 'pass' as const })),
        { sha: freshSha, job: 'b' },
        'paging',
      );
      const res = await api().unhealthy('FLAKY', { page_size: 7, page_token: page.page.next_page_token });
      expect(res.status).toBe(200);
      page = res.body;
      seen.push(...page.tests.map((t: { id: string }) => t.id));
    }

    // then
    expect(new Set(seen).size).toBe(seen.length);
    expect(original.every((id: string) => seen.includes(id))).toBe(true);
    // Rows inserted before the cursor shift the pages, so the last one may sit below total_pages, never above.
    expect(page.page.page_index).toBeLessThanOrEqual(page.page.total_pages);
  });

  it('when the last and previous tokens are followed, then they walk back to page 1 over the same rows', async () => {
    const all = (await api().unhealthy('FLAKY', { page_size: 100 })).body.tests.map((t: { id: string }) => t.id);
    const first = (await api().unhealthy('FLAKY', { page_size: 5 })).body;

    let page = (await api().unhealthy('FLAKY', { page_size: 5, page_token: first.page.last_page_token })).body;
    const seen = [...page.tests.map((t: { id: string }) => t.id)];
    expect(page.page.page_index).toBe(Math.ceil(all.length / 5));
    while (page.page.prev_page_token !== '') {
      page = (await api().unhealthy('FLAKY', { page_size: 5, page_token: page.page.prev_page_token })).body;
      seen.unshift(...page.tests.map((t: { id: string }) => t.id));
    }

    expect(page.page.page_index).toBe(1);
    expect(seen).toEqual(all);
  });

  it('when a page token is tampered with, reused for another filter, or the page size is out of range, then 422 (a string token) or 400 with a paging code', async () => {
    const next = (await api().unhealthy('FLAKY', { page_size: 3 })).body.page.next_page_token as string;
    const [payload, signature] = next.split('.') as [string, string];
    const edited = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    edited.i = 1;
    const forged = `${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${signature}`;

    // Trunk's schema takes any string as page_token: a token refused for what it holds is a 422.
    const cases: [object, number, string][] = [
      [{ page_size: 3, page_token: forged }, 422, 'INVALID_PAGE_TOKEN'],
      [{ page_size: 3, page_token: `${next}x` }, 422, 'INVALID_PAGE_TOKEN'],
      [{ page_size: 3, page_token: 'garbage' }, 422, 'INVALID_PAGE_TOKEN'],
      [{ page_size: 3, page_token: 42 }, 400, 'INVALID_PAGE_TOKEN'],
      [{ page_size: 0 }, 400, 'INVALID_PAGE_SIZE'],
      [{ page_size: 101 }, 400, 'INVALID_PAGE_SIZE'],
      [{ page_size: '10' }, 400, 'INVALID_PAGE_SIZE'],
    ];
    for (const [query, status, code] of cases) {
      const res = await api().unhealthy('FLAKY', query);
      expect([query, res.status, res.body.error?.code]).toEqual([query, status, code]);
    }
    const mismatch = await api().unhealthy('BROKEN', { page_size: 3, page_token: next });
    expect(mismatch.body.error.code).toBe('PAGE_TOKEN_MISMATCH');
    const quarantinedWithUnhealthyToken = await api().quarantined({ page_size: 3, page_token: next });
    expect(quarantinedWithUnhealthyToken.body.error.code).toBe('PAGE_TOKEN_MISMATCH');
  });

  it('when a list names another organisation, an unknown repository or a bad status, then 4xx', async () => {
    expect((await testHealthClient(server.url, TOKENS.read, 'other-org').unhealthy('FLAKY')).body.error.code).toBe('ORG_NOT_FOUND');
    expect(
      (await api().post('/flaky-tests/list-quarantined-tests', { repo: { ...REPO, name: 'nope' }, org_url_slug: ORG, page_query: {} })).body
        .error.code,
    ).toBe('REPO_NOT_FOUND');
    expect((await api().unhealthy('HEALTHY')).body.error.code).toBe('VALIDATION_FAILED');
    expect(
      (await api().post('/flaky-tests/list-unhealthy-tests', { repo: REPO, org_url_slug: ORG, status: 'FLAKY' })).body.error,
    ).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'page_query' }] });
    expect(
      (
        await testHealthClient(server.url, TOKENS.read, ORG)
          .raw('/flaky-tests/list-unhealthy-tests')
          .set('content-type', 'text/plain')
          .send('status=FLAKY')
      ).status,
    ).toBe(415);
  });
});
