import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createGithubApp, GithubCi, GithubCodeHost, type GithubApp } from '@railyard/github';
import { runGit } from '@railyard/githost';
import { FakeGithub, type FakeGithubOptions } from '@railyard/testkit';

/** The host name the GitHub repositories of these tests carry in queue ids. */
export const GITHUB_HOST = 'github.com';

export interface GithubBed {
  fake: FakeGithub;
  app: GithubApp;
  host: GithubCodeHost;
  ci: GithubCi;
  registry: Registry;
  /** The content of `file` at `sha` in `repo` (`owner/name`), or null. */
  fileAt(repo: string, sha: string, file: string): Promise<string | null>;
  close(): Promise<void>;
}

/**
 * A fake GitHub with the App installed on `acme` (allowed to bypass branch rules, as docs/github.md
 * asks), the adapter on it, and a webhook receiver that hands every delivery to the adapter as the
 * API's POST /github/webhooks does. Writes are not spaced (writeMinTimeMs 0) so tests run fast;
 * rate limits are still obeyed, in milliseconds per second of retry-after.
 */
export const startGithubBed = async (
  opts: {
    fake?: FakeGithubOptions;
    repos?: string[];
    writeMinTimeMs?: number;
    permissions?: Parameters<FakeGithub['install']>[0]['permissions'];
  } = {},
): Promise<GithubBed> => {
  const fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 0 }, ...opts.fake });
  for (const repo of opts.repos ?? ['acme/widgets']) {
    await fake.createRepo({ repo, files: { 'README.md': '# widgets\n' } });
    fake.allowBypass(repo);
  }
  fake.install({ account: 'acme', ...(opts.permissions ? { permissions: opts.permissions } : {}) });
  const registry = new Registry();
  const app = await createGithubApp({
    settings: { appId: fake.appId, privateKey: fake.appPrivateKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
    registry,
    writeMinTimeMs: opts.writeMinTimeMs ?? 0,
    retryAfterUnitMs: 10,
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const host = new GithubCodeHost({ app, appId: fake.appId, host: GITHUB_HOST, mergeabilityPollMs: [20, 50, 100, 200] });
  const ci = new GithubCi({ host });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        host.receive(String(req.headers['x-github-event']), JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        // A body that is not JSON is no event.
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/github/webhooks`);
  return {
    fake,
    app,
    host,
    ci,
    registry,
    fileAt: async (repo, sha, file) => {
      const r = await runGit(fake.gitDir(repo), ['cat-file', '-p', `${sha}:${file}`], { okCodes: [0, 128] });
      return r.code === 0 ? r.stdout : null;
    },
    close: async () => {
      await host.close();
      await ci.close();
      await fake.webhooks.settled();
      await fake.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/**
 * A bed started before each test of the file or describe this is called in and closed after it (the
 * bed registers its own hooks, docs/decisions.md D37); a test fails when the fake saw a request or
 * sent an answer that GitHub's schemas refuse. `use` receives each test's bed.
 */
export const githubBedEach = (use: (bed: GithubBed) => void, opts?: Parameters<typeof startGithubBed>[0]): void => {
  let bed: GithubBed | undefined;
  beforeEach(async () => {
    bed = await startGithubBed(opts);
    use(bed);
  });
  afterEach(async () => {
    const violations = [...(bed?.fake.violations ?? [])];
    await bed?.close();
    bed = undefined;
    expect(violations).toEqual([]);
  });
};
