import { apiBed, BED_REPO as repo, type ApiBed } from '../../testing/api-bed';

jest.setTimeout(30_000);

let bed: ApiBed;
const ORG = 'railyard';
const SHA = 'c'.repeat(40);

/** One JUnit report: `rounds` failing or passing, `adds` passing. */
const report = (rounds: 'pass' | 'fail') =>
  Buffer.from(
    `<testsuite name="cart"><testcase name="rounds" classname="cart">${rounds === 'fail' ? '<failure message="off by one"/>' : ''}</testcase>` +
      '<testcase name="adds" classname="cart"/></testsuite>',
  ).toString('base64');

const upload = (rounds: 'pass' | 'fail', job: string) =>
  bed.post('/uploadTestResults', {
    repo,
    sha: SHA,
    branch: 'feature/x',
    job,
    files: [{ name: 'junit.xml', contentBase64: report(rounds) }],
  });

const range = (fromMs: number, toMs: number) => ({
  repo,
  org_url_slug: ORG,
  start_time: new Date(fromMs).toISOString(),
  end_time: new Date(toMs).toISOString(),
  page_query: { page_size: 10 },
});

let roundsId: string;

beforeAll(async () => {
  bed = await apiBed();
  expect((await upload('fail', 'unit-1')).status).toBe(200);
  expect((await upload('pass', 'unit-2')).status).toBe(200);
  const flaky = await bed.post('/flaky-tests/list-unhealthy-tests', { repo, org_url_slug: ORG, status: 'FLAKY', page_query: {} });
  roundsId = flaky.body.tests[0].id;
});
afterAll(() => bed.close());

describe('list-failing-tests', () => {
  it('when a test failed in the range, then it alone is listed, with its failure rates and message; outside the range, none is', async () => {
    const now = Date.now();
    const listed = await bed.post('/flaky-tests/list-failing-tests', range(now - 3_600_000, now + 60_000));
    expect(listed.status).toBe(200);
    expect(listed.body.tests).toEqual([
      expect.objectContaining({
        id: roundsId,
        name: 'rounds',
        most_common_failures: [{ summary: 'off by one', occurrence_count: 1, last_occurrence: expect.any(String) }],
        failure_rate_last_7d: 0.5,
        failure_rate_last_24h: 0.5,
      }),
    ]);
    expect(listed.body.page).toMatchObject({ total_rows: 1, page_index: 1, next_page_token: '' });
    expect((await bed.post('/flaky-tests/list-failing-tests', range(now - 86_400_000, now - 3_600_000))).body.tests).toEqual([]);
  });

  it('when the range is longer than 7 days or ends before it starts, then 422 INVALID_TIME_RANGE', async () => {
    const now = Date.now();
    for (const body of [range(now - 8 * 86_400_000, now), range(now, now - 1000)]) {
      const res = await bed.post('/flaky-tests/list-failing-tests', body);
      expect([res.status, res.body.error.code]).toEqual([422, 'INVALID_TIME_RANGE']);
    }
  });
});

describe('get-test-details and link-ticket-to-test-case', () => {
  it('when the details name the organisation, then they carry the failure rates; another organisation is a 404', async () => {
    const details = await bed.post('/flaky-tests/get-test-details', { repo, org_url_slug: ORG, test_id: roundsId });
    expect(details.body.test).toMatchObject({
      id: roundsId,
      failure_rate_last_7d: 0.5,
      most_common_failures: [{ summary: 'off by one', occurrence_count: 1 }],
    });
    expect(details.body.test).not.toHaveProperty('ticket');
    const other = await bed.post('/flaky-tests/get-test-details', { repo, org_url_slug: 'elsewhere', test_id: roundsId });
    expect([other.status, other.body.error.code]).toEqual([404, 'ORG_NOT_FOUND']);
  });

  it('when a ticket is linked by an id without RAILYARD_TICKET_URL, then it is kept as a URI naming the id; by a URL, then the test shows it', async () => {
    // Trunk's clients send only the id; refusing it would break them on a server without the setting.
    const byId = await bed.post('/flaky-tests/link-ticket-to-test-case', { repo, test_case_id: roundsId, external_ticket_id: 'KAN 1' });
    expect([byId.status, byId.body]).toEqual([200, { test_case_id: roundsId, ticket: { html_url: 'urn:x-ticket:KAN%201' } }]);
    expect((await bed.post('/flaky-tests/get-test-details', { repo, test_id: roundsId })).body.test.ticket).toEqual({
      html_url: 'urn:x-ticket:KAN%201',
    });
    const url = 'https://tracker.example.org/KAN-1';
    const byUrl = await bed.post('/flaky-tests/link-ticket-to-test-case', { repo, test_case_id: roundsId, external_ticket_id: url });
    expect(byUrl.body).toEqual({ test_case_id: roundsId, ticket: { html_url: url } });
    const details = await bed.post('/flaky-tests/get-test-details', { repo, test_id: roundsId });
    expect(details.body.test.ticket).toEqual({ html_url: url });
    const unlinked = await bed.post('/flaky-tests/link-ticket-to-test-case', { repo, test_case_id: roundsId, html_url: '' });
    expect(unlinked.body).toEqual({ test_case_id: roundsId });
  });
});

describe('flaky-ci/create-ci-run', () => {
  const run = {
    repo,
    org_url_slug: ORG,
    ci_job_name: 'unit',
    provider: 'github',
    run_start: '2026-03-01T09:00:00Z',
    run_end: '2026-03-01T09:05:00Z',
    branch: 'feature/x',
    sha: SHA,
    attempt: 1,
    run_conclusion: 'failure',
    run_conclusion_cause: 'ci',
    providers_run_id: '77',
  };
  const recorded = async () => (await bed.eventStore.readAll(null, 10_000)).filter((e) => e.type === 'CiRunRecorded');

  it('when a run is reported twice, then it gets one id and is recorded once; another attempt gets another id', async () => {
    const first = await bed.post('/flaky-ci/create-ci-run', run);
    expect(first.status).toBe(200);
    expect(first.body.run_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
    expect((await bed.post('/flaky-ci/create-ci-run', run)).body.run_id).toBe(first.body.run_id);
    expect(await recorded()).toHaveLength(1);
    expect((await bed.post('/flaky-ci/create-ci-run', { ...run, attempt: 2 })).body.run_id).not.toBe(first.body.run_id);
    expect((await recorded())[1]?.data).toMatchObject({ ciJobName: 'unit', attempt: 2, conclusionCause: 'ci', commitSha: SHA });
  });

  it('when the run ends before it starts or names another organisation, then it is refused and nothing is recorded', async () => {
    const before = (await recorded()).length;
    expect((await bed.post('/flaky-ci/create-ci-run', { ...run, run_end: '2026-03-01T08:00:00Z' })).status).toBe(422);
    expect((await bed.post('/flaky-ci/create-ci-run', { ...run, org_url_slug: 'elsewhere' })).status).toBe(404);
    expect(await recorded()).toHaveLength(before);
  });
});
