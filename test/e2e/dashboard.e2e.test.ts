import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { queueIdOf } from '@railyard/domain';
import { client, configureCi, openPrWithFile, prReaches, REPO, startEmbedded } from './support/engine-world';
import type { RunningProcess } from './support/processes';
import { openPrWithFiles, SLOW_OR_FAIL_CHECK } from './support/slow-check';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(240_000);

// Debian's chromium (installed by .ci/run when missing); playwright-core downloads no browser.
const CHROMIUM = process.env.RAILYARD_CHROMIUM ?? '/usr/bin/chromium';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
// Set to a folder to keep a screenshot of each page (docs/dashboard.md's images are made this way).
const SHOTS = process.env.RAILYARD_DASHBOARD_SCREENSHOTS;

const QUEUE = `/queues/${encodeURIComponent(queueIdOf(REPO, 'main'))}`;

let world: World;
let server: RunningProcess;
let browser: Browser;

const signedIn = async (token: string): Promise<{ context: BrowserContext; page: Page }> => {
  // bypassCSP only so that the test can inject axe-core; the pages themselves load no inline script.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  await page.waitForURL(/\/sign-in/);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/`);
  return { context, page };
};

const shot = async (page: Page, name: string): Promise<void> => {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `dashboard-${name}.png`), fullPage: true });
};

/** axe-core's violations of impact serious or critical on the page as it is now. */
const seriousViolations = async (page: Page): Promise<string[]> => {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }
    ).axe;
    return (await axe.run()).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
};

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { test: SLOW_OR_FAIL_CHECK });
  server = await startEmbedded(world);
  expect((await client(server.url, TOKENS.admin).createQueue()).status).toBe(200);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await world?.cleanup();
});

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
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'overview');

    await page.getByRole('link', { name: 'git.local/acme/widgets main' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Queue acme/widgets main');
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${server.url}${QUEUE}/prs/1`);
    await expect(page.locator('#reason').textContent()).resolves.toMatch(/failed because check `test` failed on run \S+/);
    expect(await page.locator('table').last().textContent()).toContain('PrFailed');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'pr');

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
    await expect(writer.page.locator('tbody tr').last().textContent()).resolves.toContain('1 PR(s) ahead must settle first: #4');
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
});
