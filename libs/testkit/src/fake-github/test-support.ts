import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGithub, type FakeGithubOptions } from './fake-github';
import { FakeGithubClient } from './http-client';
import type { FakeInstallation } from './model';

/** Shared set-up of the fake's own tests: a fake with one repository and the App installed on its owner. */

export const REPO = 'acme/widgets';

/** Every permission an operation of the fake asks for, for tests that call them all. */
export const FULL_PERMISSIONS = {
  contents: 'write',
  pull_requests: 'write',
  checks: 'write',
  statuses: 'write',
  issues: 'write',
  metadata: 'read',
  administration: 'read',
  actions: 'read',
} as const;

export interface FakeContext {
  fake: FakeGithub;
  client: FakeGithubClient;
  inst: FakeInstallation;
}

/**
 * Starts a fake with `acme/widgets` before each test, and after it checks that nothing the fake sent
 * broke GitHub's schemas before stopping it.
 */
export const useFakeGithub = (
  options: FakeGithubOptions = {},
  install: Omit<Parameters<FakeGithub['install']>[0], 'account'> = {},
): FakeContext => {
  const ctx = {} as FakeContext;
  beforeEach(async () => {
    ctx.fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 0 }, ...options });
    ctx.client = new FakeGithubClient(ctx.fake);
    await ctx.fake.createRepo({ repo: REPO, files: { 'README.md': '# widgets\n', 'config.yml': 'version: 1\n' } });
    ctx.inst = ctx.fake.install({ account: 'acme', ...install });
  });
  afterEach(async () => {
    await ctx.fake.webhooks.settled();
    const violations = [...ctx.fake.violations];
    await ctx.fake.stop();
    expect(violations).toEqual([]);
  });
  return ctx;
};

/** Polls `check` until it holds (background work of the fake: merged flags, CI results). */
export const eventually = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP server that records the webhooks it receives and answers `status`. */
export const startReceiver = async (status = 204): Promise<{ url: string; received: ReceivedHook[]; close: () => Promise<void> }> => {
  const received: ReceivedHook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/github/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
