import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { Receiver } from '@railyard/testkit';
import { launchChromium, seriousViolations, shot, signIn } from './support/browser';
import {
  client,
  configureCi,
  eventually,
  makeWorld,
  NO_FAIL_CHECK,
  startEmbedded,
  TOKENS,
  type RunningProcess,
  type World,
} from './support/engine-world';
import { checkDelivery, receiverPool } from './support/webhook-checks';

jest.setTimeout(240_000);

let world: World;
let server: RunningProcess;
let browser: Browser;
const receivers = receiverPool();

// The receivers listen on 127.0.0.1, which the server is told to allow; two tries, 200 ms apart, before an endpoint is disabled.
const ENV = {
  RAILYARD_WEBHOOKS_ALLOW_NETWORKS: '127.0.0.1/32',
  RAILYARD_WEBHOOKS_RETRY_MIN_MS: '200',
  RAILYARD_WEBHOOKS_RETRY_ATTEMPTS: '2',
  // Secrets sealed in the log (D249): every delivery below is also signed with a secret opened from it.
  RAILYARD_WEBHOOKS_SECRET_KEYS: `e2e:${randomBytes(32).toString('base64')}`,
};

/** The bytes of the event log as they are on disk (its write-ahead log included). */
const logOnDisk = (): string =>
  ['events.sqlite', 'events.sqlite-wal']
    .map((f) => path.join(world.dataDir, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('');

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: NO_FAIL_CHECK });
  server = await startEmbedded(world, ENV);
  expect((await client(server.url, TOKENS.admin).createQueue()).status).toBe(200);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receivers.stopAll();
  await world?.cleanup();
});

const receiver = (): Promise<Receiver> => receivers.start();

/** A queue state change: the one event these tests need, with no PR and no CI. */
const setQueueState = async (state: 'paused' | 'running'): Promise<void> => {
  expect((await client(server.url, TOKENS.admin).updateQueue({ state })).status).toBe(200);
};

describe('the webhooks pages in a real browser', () => {
  it('when an admin adds an endpoint, then its secret is shown once and signs what it is sent; the log shows the delivery and sends it again', async () => {
    const r = await receiver();
    const { context, page } = await signIn(browser, server.url, TOKENS.admin);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Webhook endpoints');
    await page.getByText('Add an endpoint').click();
    const form = page.getByRole('form', { name: 'add an endpoint' });
    await form.getByLabel('URL').fill(r.url);
    await form.getByLabel('Description').fill('ops hook');
    await form.getByLabel(/^Events/).fill('queue.state_changed');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'webhooks-add');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Endpoint added');
    const secret = (await page.getByLabel('signing secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    expect(await seriousViolations(page)).toEqual([]);

    // The endpoint's page never shows the secret again; the message it is sent is signed with it.
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await expect(page.locator('main').textContent()).resolves.not.toContain(secret);
    await setQueueState('paused');
    await eventually('the pause delivered', async () => (r.received.length >= 1 ? true : undefined));
    const first = checkDelivery(secret, r.received[0]!);
    expect(first).toMatchObject({ type: 'queue.state_changed', payload: { status: 'paused' } });
    expect(logOnDisk()).toContain('WebhookEndpointCreated');
    expect(logOnDisk()).not.toContain(secret.slice('whsec_'.length));

    await page.reload();
    const row = page.locator('tr[data-attempt]').first();
    await expect(row.textContent()).resolves.toMatch(/queue\.state_changed.*200.*ms.*ok/s);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'webhook-endpoint');
    await row.getByRole('button', { name: 'Send again' }).click();
    await page.locator('tr[data-attempt]', { hasText: 'sent again' }).waitFor();
    expect(r.received).toHaveLength(2);
    expect(checkDelivery(secret, r.received[1]!).id).toBe(first.id);

    // Rotated: the new secret signs from now on, the old one no longer does.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Secret rotated');
    const rotated = (await page.getByLabel('signing secret').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await setQueueState('running');
    const resumed = await eventually('the resume delivered', async () =>
      r.received.find((m) => (JSON.parse(m.body) as { status?: string }).status === 'running'),
    );
    expect(checkDelivery(rotated, resumed).payload).toMatchObject({ type: 'queue.state_changed' });
    expect(() => checkDelivery(secret, resumed)).toThrow();
    await context.close();
  });

  it('when an admin disables, enables and deletes an endpoint, and one is disabled by failures, then the list says which and why', async () => {
    const failing = await receiver();
    failing.answer = () => 500;
    const created = await client(server.url, TOKENS.admin).post('/createWebhookEndpoint', {
      url: failing.url,
      description: 'always down',
      events: ['queue.state_changed'],
    });
    expect(created.status).toBe(200);
    await setQueueState('paused');
    await setQueueState('running');
    await eventually('the failing endpoint disabled', async () => {
      const list = await client(server.url, TOKENS.admin).post('/listWebhookEndpoints', {});
      const ep = (list.body.endpoints as { description: string; enabled: boolean }[]).find((e) => e.description === 'always down');
      return ep && !ep.enabled ? true : undefined;
    });

    const { context, page } = await signIn(browser, server.url, TOKENS.admin);
    await page.goto(`${server.url}/webhooks`);
    const down = page.locator('tr', { hasText: 'always down' });
    await expect(down.textContent()).resolves.toMatch(/disabled after failed deliveries.*2 tries of .* failed; last: HTTP 500/s);

    const ops = page.locator('tr', { hasText: 'ops hook' });
    await ops.getByRole('link', { name: 'ops hook' }).click();
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    await page.goto(`${server.url}/webhooks`);
    await expect(ops.textContent()).resolves.toContain('disabled by an admin');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'webhooks');
    await ops.getByRole('link', { name: 'ops hook' }).click();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();

    await page.goto(`${server.url}/webhooks`);
    await down.getByRole('link', { name: 'always down' }).click();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.waitForURL(`${server.url}/webhooks`);
    expect(await page.locator('tr', { hasText: 'always down' }).count()).toBe(0);
    await context.close();
  });

  it('when an admin gives a private address, then the page refuses it with the API’s reason and nothing is added', async () => {
    const { context, page } = await signIn(browser, server.url, TOKENS.admin);
    await page.goto(`${server.url}/webhooks`);
    const before = await page.locator('tr[data-endpoint]').count();
    await page.getByText('Add an endpoint').click();
    const form = page.getByRole('form', { name: 'add an endpoint' });
    await form.getByLabel('URL').fill('http://10.1.2.3/hook');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.locator('p.error').textContent()).resolves.toMatch(/10\.1\.2\.3 is not a public address/);
    await page.goto(`${server.url}/webhooks`);
    expect(await page.locator('tr[data-endpoint]').count()).toBe(before);
    await context.close();
  });

  it('when a reader opens the webhooks page, then it sees each endpoint’s state but no path, secret, log or control, and a forged form is refused', async () => {
    const { context, page } = await signIn(browser, server.url, TOKENS.read);
    await page.goto(`${server.url}/webhooks`);
    const row = page.locator('tr', { hasText: 'ops hook' });
    await expect(row.textContent()).resolves.toContain('enabled');
    await expect(page.locator('main').textContent()).resolves.not.toContain('/hook');
    expect(await page.getByRole('link', { name: 'ops hook' }).count()).toBe(0);
    expect(await page.getByText('Add an endpoint').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    const endpointId = (await row.getAttribute('data-endpoint')) ?? '';
    const opened = await page.goto(`${server.url}/webhooks/${endpointId}`);
    expect(opened?.status()).toBe(403);
    await page.goto(`${server.url}/webhooks`);
    // With the reader's own CSRF token (the sign-out form's): refused for its scope, not for a missing token.
    const csrf = (await page.locator('input[name="_csrf"]').first().getAttribute('value')) ?? '';
    const forged = await page.evaluate(
      async ([url, token]) => {
        const res = await fetch(url as string, { method: 'POST', body: new URLSearchParams({ _csrf: token as string }) });
        return { status: res.status, text: await res.text() };
      },
      [`/webhooks/${endpointId}/delete`, csrf],
    );
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('this needs admin');
    const list = await client(server.url, TOKENS.admin).post('/listWebhookEndpoints', {});
    expect((list.body.endpoints as { endpointId: string }[]).map((e) => e.endpointId)).toContain(endpointId);
    await context.close();
  });
});
