import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// Debian's chromium (installed by .ci/run when missing); playwright-core downloads no browser.
const CHROMIUM = process.env.RAILYARD_CHROMIUM ?? '/usr/bin/chromium';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
// Set to a folder to keep a screenshot of each page (docs/dashboard.md's images are made this way).
const SHOTS = process.env.RAILYARD_DASHBOARD_SCREENSHOTS;

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });

/** A new browser context signed in to the dashboard at `url` with `token`, on the overview. */
export const signIn = async (browser: Browser, url: string, token: string): Promise<{ context: BrowserContext; page: Page }> => {
  // bypassCSP only so that the test can inject axe-core; the pages themselves load no inline script.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.waitForURL(/\/sign-in/);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/`);
  return { context, page };
};

export const shot = async (page: Page, name: string): Promise<void> => {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `dashboard-${name}.png`), fullPage: true });
};

/** axe-core's violations of impact serious or critical on the page as it is now. */
export const seriousViolations = async (page: Page): Promise<string[]> => {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }
    ).axe;
    return (await axe.run()).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
};
