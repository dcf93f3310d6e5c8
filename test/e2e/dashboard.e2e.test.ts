import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { queueIdOf } from '@railyard/domain';
import { launchChromium, seriousViolations, shot, signIn } from './support/browser';
import { client, configureCi, eventually, openPrWithFile, prReaches, REPO, startEmbedded } from './support/engine-world';
import type { RunningProcess } from './support/processes';
import { openPrWithFiles, SLOW_OR_FAIL_CHECK } from './support/slow-check';
import { makeWorld, TOKENS, type World } from './support/world';
import { cartCase, junitXml, shaOf, testHealthClient } from './support/junit';

jest.setTimeout(240_000);

const QUEUE = `/queues/${encodeURIComponent(queueIdOf(REPO, 'main'))}`;

let world: World;
let server: RunningProcess;
let browser: Browser;

const signedIn = (token: string): Promise<{ context: BrowserContext; page: Page }> => signIn(browser, server.url, token);

/** How wide the document is, and how wide its header, at the viewport the page has now. */
const widths = (page: Page): Promise<{ document: number; header: number }> =>
  page.evaluate(() => {
    // The test's TypeScript has no DOM library: the page's document, typed for what is read here.
    const doc = (
      globalThis as unknown as {
        document: {
          documentElement: { scrollWidth: number };
          querySelector: (s: string) => { getBoundingClientRect: () => { width: number } } | null;
        };
      }
    ).document;
    return {
      document: doc.documentElement.scrollWidth,
      header: Math.round(doc.querySelector('header')?.getBoundingClientRect().width ?? 0),
    };
  });

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { test: SLOW_OR_FAIL_CHECK });
  server = await startEmbedded(world);
  expect((await client(server.url, TOKENS.admin).createQueue()).status).toBe(200);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await world?.cleanup();
});

/** A flaky test's html_url, as Trunk's list-unhealthy-tests gives it. */
const testPageOf = async (name: string): Promise<string> => {
  const th = testHealthClient(server.url, TOKENS.read, 'railyard');
  const listed = await th.post('/flaky-tests/list-unhealthy-tests', {
    repo: REPO,
    org_url_slug: 'railyard',
    status: 'FLAKY',
    page_query: {},
  });
  return (listed.body.tests as { name: string; html_url: string }[]).find((t) => t.name === name)?.html_url ?? '';
};

describe('the dashboard in a real browser', () => {
  it('when a token is wrong, then sign-in says so; when it is right, then a HttpOnly SameSite session cookie is set and the overview shows', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('API token').fill('not-a-token-at-all-0123456789');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not a known API token');
    await page.getByLabel('API token').fill(TOKENS.read);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/`);
    const cookie = (await context.cookies()).find((c) => c.name === 'railyard_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookie?.value).not.toContain(TOKENS.read);
    await expect(page.locator('h1').textContent()).resolves.toBe('Queues');
    await context.close();
  });

  it('when a PR fails, then each page shows it, the check log opens in the browser, and no page has a serious accessibility violation', async () => {
    await openPrWithFile(world, 1, 'FAIL\n');
    expect((await client(server.url, TOKENS.write).submit(1)).status).toBe(200);
    await prReaches(server.url, 1, ['failed'], 120_000);
    await openPrWithFile(world, 2, 'fine\n');
    await client(server.url, TOKENS.write).submit(2);
    await prReaches(server.url, 2, ['merged'], 120_000);
    const { context, page } = await signedIn(TOKENS.admin);

    await expect(page.locator('section.card h2').textContent()).resolves.toContain('git.local/acme/widgets main');
    expect(await page.locator('section.card svg').count()).toBe(3);
    // A chart says its unit on its axis and its values in its label.
    expect(await page.locator('section.card svg').first().textContent()).toMatch(/seconds|minutes/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'overview');

    await page.getByRole('link', { name: 'git.local/acme/widgets main' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Queue acme/widgets main');
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${server.url}${QUEUE}/prs/1`);
    await expect(page.locator('#reason').textContent()).resolves.toMatch(/failed because check test failed on run \S+/);
    expect(await page.locator('#reason code').first().textContent()).toBe('test');
    expect(await page.locator('table').last().textContent()).toContain('PR failed');
    expect(await page.locator('[data-code="TEST_RUN_REQUIRED_STATUS_FAILED"]').count()).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'pr');

    // Copying a shortened id gives the whole id, as a clipboard event carries it.
    // As source text: the test's TypeScript has no DOM library.
    const copied = (await page.evaluate(`(() => {
      const id = document.querySelector('code.id');
      const range = document.createRange();
      range.selectNodeContents(id);
      document.getSelection().removeAllRanges();
      document.getSelection().addRange(range);
      const data = new DataTransfer();
      id.dispatchEvent(new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true }));
      return { shown: id.textContent, copied: data.getData('text/plain'), full: id.dataset.id };
    })()`)) as { shown: string; copied: string; full: string };
    expect(copied.copied).toBe(copied.full);
    expect(copied.full.length).toBeGreaterThan(copied.shown.length);

    await page.getByRole('link', { name: /^Run / }).first().click();
    await expect(page.locator('h1').textContent()).resolves.toMatch(/^Test run /);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'run');
    const [log] = await Promise.all([page.waitForResponse(/\/ci\/logs\//), page.getByRole('link', { name: 'log of test' }).click()]);
    expect(log.status()).toBe(200);
    expect(log.headers()['content-type']).toMatch(/^text\/plain/);

    await page.goto(`${server.url}${QUEUE}/history?at=${encodeURIComponent(new Date().toISOString())}`);
    await expect(page.locator('main').textContent()).resolves.toContain('the queue was');
    await page.getByRole('link', { name: '← previous event' }).click();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'history');

    await page.goto(`${server.url}/tests`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Flaky and quarantined tests');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'tests');
    await context.close();
  });

  it('when a test failed and passed on one commit, then the tests page links to its page, which Trunk’s html_url names too, with its commonest failure', async () => {
    const th = testHealthClient(server.url, TOKENS.write, 'railyard');
    const upload = (outcome: 'fail' | 'pass', job: string) =>
      th.post('/uploadTestResults', {
        repo: REPO,
        sha: shaOf('dashboard-flake'),
        branch: 'feature/cart',
        job,
        files: [
          { name: 'junit.xml', contentBase64: Buffer.from(junitXml([cartCase('rounds totals', outcome)], 'cart')).toString('base64') },
        ],
      });
    expect((await upload('fail', 'unit-1')).status).toBe(200);
    expect((await upload('pass', 'unit-2')).status).toBe(200);
    const listed = await th.post('/flaky-tests/list-unhealthy-tests', {
      repo: REPO,
      org_url_slug: 'railyard',
      status: 'FLAKY',
      page_query: {},
    });
    const htmlUrl = (listed.body.tests as { name: string; html_url: string }[]).find((t) => t.name === 'rounds totals')?.html_url ?? '';
    expect(htmlUrl.startsWith(`${server.url}/repos/`)).toBe(true);

    const { context, page } = await signedIn(TOKENS.read);
    await page.goto(`${server.url}/tests`);
    await page.getByRole('link', { name: /rounds totals/ }).click();
    expect(page.url()).toBe(htmlUrl);
    await expect(page.locator('h1').textContent()).resolves.toBe('cart › rounds totals');
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain('expected 1 to be 2');
    expect(main).toMatch(/50 % of its runs in 7 days/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'test');
    await page.goto(htmlUrl.replace(/\/tests\/[^/]+$/, ''));
    await expect(page.locator('h1').textContent()).resolves.toBe('Flaky and quarantined tests');
    await page.goto(`${htmlUrl.replace(/[^/]+$/, '')}not-a-test`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Not found');
    await context.close();
  });

  it('when a PR merges while its page is open, then the page updates itself without a reload', async () => {
    await openPrWithFile(world, 3, 'merges\n');
    const admin = client(server.url, TOKENS.admin);
    // Paused, the PR waits where the page can see it before it merges.
    expect((await admin.updateQueue({ state: 'paused' })).status).toBe(200);
    await client(server.url, TOKENS.write).submit(3);
    const { context, page } = await signedIn(TOKENS.read);
    await page.goto(`${server.url}${QUEUE}/prs/3`);
    await expect(page.locator('main').textContent()).resolves.toContain('the queue is paused');
    await page.evaluate(() => {
      (globalThis as unknown as { marker: number }).marker = 42;
    });
    expect((await admin.updateQueue({ state: 'running' })).status).toBe(200);
    await page.locator('h2', { hasText: 'State: merged' }).waitFor({ timeout: 120_000 });
    // The same document: the live region was swapped in place.
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(42);
    await context.close();
  });

  it('when a writer cancels a PR from its page, then it is cancelled; a reader sees no cancel button and a forged form is refused', async () => {
    // slow.txt keeps its check running for a minute: the PR is still testing when the button is pressed.
    await openPrWithFiles(world, 4, { 'slow.txt': 'slow\n' });
    await client(server.url, TOKENS.write).submit(4);
    await prReaches(server.url, 4, ['testing'], 120_000);
    await openPrWithFile(world, 5, 'behind\n');
    await client(server.url, TOKENS.write).submit(5);

    const reader = await signedIn(TOKENS.read);
    await reader.page.goto(`${server.url}${QUEUE}/prs/4`);
    expect(await reader.page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    const forged = await reader.page.evaluate(
      async (url) => (await fetch(url, { method: 'POST', body: new URLSearchParams({ _csrf: 'x' }) })).status,
      `${QUEUE}/prs/4/cancel`,
    );
    expect(forged).toBe(403);
    await reader.context.close();

    const writer = await signedIn(TOKENS.write);
    await writer.page.goto(`${server.url}${QUEUE}`);
    await expect(writer.page.locator('tr[data-pr="5"]').textContent()).resolves.toContain('1 PR(s) ahead must settle first: #4');
    expect(await writer.page.locator('svg.graph').getAttribute('aria-label')).toMatch(/tests 4 on the target/);
    expect(await seriousViolations(writer.page)).toEqual([]);
    await shot(writer.page, 'queue');
    await writer.page.goto(`${server.url}${QUEUE}/prs/4`);
    await writer.page.getByRole('button', { name: 'Cancel' }).click();
    await writer.page.locator('#reason', { hasText: 'cancelled' }).waitFor();
    await expect(writer.page.locator('#reason').textContent()).resolves.toContain('cancelled');
    expect((await client(server.url, TOKENS.read).getPr(4)).body.state).toBe('cancelled');
    await writer.context.close();
  });

  it('when a queue has merged, failed, cancelled, testing and waiting PRs, then its page shows each with reason and durations, fits 375 px and has no serious accessibility violation', async () => {
    // From the tests above: #1 failed, #2 and #3 merged, #4 cancelled, #5 behind it merges.
    await prReaches(server.url, 5, ['merged'], 180_000);
    await openPrWithFiles(world, 6, { 'slow.txt': 'slow\n' });
    await client(server.url, TOKENS.write).submit(6);
    await prReaches(server.url, 6, ['testing'], 120_000);
    await openPrWithFile(world, 7, 'waits\n');
    await client(server.url, TOKENS.write).submit(7);
    await prReaches(server.url, 7, ['pending'], 60_000);

    const { context, page } = await signedIn(TOKENS.read);
    await page.goto(`${server.url}${QUEUE}`);
    const row = (n: number) => page.locator(`tr[data-pr="${n}"]`);
    // Testing: for how long, and what its run holds.
    await expect(row(6).textContent()).resolves.toMatch(/testing for [\d.]+ (s|min)/);
    await expect(page.locator('section.run').first().textContent()).resolves.toMatch(/running for [\d.]+ (s|min)/);
    expect(await page.locator('svg.graph').getAttribute('aria-label')).toMatch(/tests 6 on the target/);
    // Waiting: on what, since when, and a labelled guess of when it merges from the runs that finished.
    await expect(row(7).textContent()).resolves.toContain('#6');
    // A guess in time, or, once #6's run has outlasted the usual length (a slow machine), "any moment".
    await expect(row(7).locator('td.eta').textContent()).resolves.toMatch(
      /~[\d.]+ (s|min)|any moment \(its run is past the usual length\)/,
    );
    await expect(page.locator('main').textContent()).resolves.toContain('Estimates are guesses');
    // Outcomes: each with its reason in words, the code kept in data-code, the time in queue and the run's length.
    await expect(row(1).textContent()).resolves.toMatch(/failed because check test failed/);
    expect(await row(1).getAttribute('data-state')).toBe('failed');
    await expect(row(1).locator('td.reason').getAttribute('data-code')).resolves.toBe('TEST_RUN_REQUIRED_STATUS_FAILED');
    await expect(row(4).textContent()).resolves.toContain('cancelled through the API');
    await expect(row(2).textContent()).resolves.toMatch(/merged after run \w{8}/);
    for (const n of [1, 2]) await expect(row(n).textContent()).resolves.toMatch(/took [\d.]+ (s|min), ended \d\d:\d\d UTC/);
    // No raw code, backtick or full run id in the text.
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toContain('`');
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    expect(text).not.toContain('in_progress');
    // A short id keeps the full one for hover and copy.
    expect(await page.locator('code.id').first().getAttribute('data-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'queue');

    // The cancelled PR's run: its unfinished check did not finish; it is not "pending" or "running".
    await page.goto(`${server.url}${QUEUE}/prs/4`);
    await page.getByRole('link', { name: /^Run / }).first().click();
    const checks = (await page.locator('tr[data-check="test"]').textContent()) ?? '';
    expect(checks).toContain('did not finish (the run was cancelled)');
    expect(checks).not.toMatch(/pending|running/);
    await expect(page.locator('main').textContent()).resolves.toMatch(/Ended\s*\d\d:\d\d UTC, after [\d.]+ (s|min)/);

    await page.setViewportSize({ width: 375, height: 800 });
    for (const at of ['/', QUEUE, `${QUEUE}/prs/1`, `${QUEUE}/prs/4`, '/tests', new URL(await testPageOf('rounds totals')).pathname]) {
      await page.goto(`${server.url}${at}`);
      expect({ at, ...(await widths(page)) }).toEqual({ at, document: 375, header: 375 });
    }
    await page.goto(`${server.url}${QUEUE}`);
    await shot(page, 'queue-375');
    await context.close();
  });

  it('when an admin creates and configures a queue in the page, then the queue has the settings, a bad value is refused naming the field, and the history names the admin', async () => {
    const { context, page } = await signedIn(TOKENS.admin);
    await page.getByText('Create a queue').click();
    const create = page.getByRole('form', { name: 'create a queue' });
    await create.getByLabel('Host').fill(REPO.host);
    await create.getByLabel('Owner').fill(REPO.owner);
    await create.getByLabel('Repository', { exact: true }).fill(REPO.name);
    await create.getByLabel('Target branch').fill('release');
    await create.getByLabel('Mode').selectOption('parallel');
    await create.getByLabel('Runs at a time').fill('3');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'create-queue');
    await create.getByRole('button', { name: 'Create queue' }).click();
    await page.waitForURL(/\/queues\/[^/]+$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Queue acme/widgets release');
    const admin = client(server.url, TOKENS.admin);
    expect((await admin.getQueue('release')).body).toMatchObject({ mode: 'parallel', concurrency: 3 });

    // A value the API refuses is refused here too, with the API's own message for the field; nothing changes.
    await page.getByText('Change settings').click();
    const settings = page.getByRole('form', { name: 'queue settings' });
    await settings.getByLabel('Testing timeout (minutes)').fill('99999999999');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.locator('p.error').textContent()).resolves.toMatch(/^Not saved: testingTimeoutMinutes: /);
    expect((await admin.getQueue('release')).body).toMatchObject({ concurrency: 3 });

    await page.goBack();
    await page.reload();
    await page.getByText('Change settings').click();
    await settings.getByLabel('Runs at a time').fill('2');
    await settings.getByLabel(/^Required checks/).fill('build, test');
    expect(await seriousViolations(page)).toEqual([]);
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/\/queues\/[^/]+$/);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await admin.getQueue('release')).body).toMatchObject({ concurrency: 2, state: 'paused', requiredStatuses: ['build', 'test'] });

    const history = await request(server.url)
      .post('/v1/getQueueHistory')
      .set('x-api-token', TOKENS.admin)
      .send({ repo: REPO, targetBranch: 'release' });
    expect(history.status).toBe(200);
    // What people did (not the engine) is each named by the admin token's name, "ops" (support/world.ts).
    const byPeople = (history.body as { events: { type: string; actor: string }[] }).events.filter((e) => e.actor !== 'engine');
    expect(byPeople.map((e) => e.type)).toEqual(['QueueCreated', 'QueueConfigUpdated', 'QueueStateChanged']);
    expect(new Set(byPeople.map((e) => e.actor))).toEqual(new Set(['ops']));
    await context.close();
  });

  it("when a queue's repository does not exist on the host, then its page and the overview show the problem in words, not an empty queue", async () => {
    const missing = { ...REPO, name: 'missing' };
    const created = await request(server.url)
      .post('/v1/createQueue')
      .set('x-api-token', TOKENS.admin)
      .send({ repo: missing, targetBranch: 'main' });
    expect(created.status).toBe(200);
    await eventually(
      'the engine to report the missing repository',
      async () => {
        const q = await request(server.url)
          .post('/v1/getQueue')
          .set('x-api-token', TOKENS.read)
          .send({ repo: missing, targetBranch: 'main' });
        return (q.body as { hostProblem?: { code: string } }).hostProblem?.code === 'REPOSITORY_NOT_FOUND' ? true : undefined;
      },
      120_000,
    );

    const { context, page } = await signedIn(TOKENS.read);
    await page.goto(`${server.url}/queues/${encodeURIComponent(queueIdOf(missing, 'main'))}`);
    const problem = page.locator('.problem[data-code="REPOSITORY_NOT_FOUND"]');
    await expect(problem.textContent()).resolves.toContain('the code host has no such repository');
    expect(await page.getByRole('alert').count()).toBe(1);
    await expect(page.locator('main').textContent()).resolves.not.toContain('No PR is waiting or testing');
    await page.goto(`${server.url}/`);
    await expect(page.locator('section.card', { hasText: 'missing' }).textContent()).resolves.toContain(
      'problem: the code host has no such repository',
    );
    await context.close();
  });
});
