import { generateKeyPairSync } from 'node:crypto';
import { Registry } from 'prom-client';
import { eventually, FakeGithub, startReceiver, type FakeInstallation } from '@railyard/testkit';
import { createGithubApp, type GithubApp, type GithubAppOptions, type GithubLogger } from './github-app';
import { GITHUB_REQUESTS_METRIC } from './request-metrics';
import { createWebhookVerifier } from './webhook-verifier';

// The App client against the fake GitHub: tokens, rate limits, retries and the request counter.
// Waits are scaled down (retryAfterUnitMs) and asserted through what was logged and the order of
// requests, never through wall time.

jest.setTimeout(60_000);

const REPO = { owner: 'acme', repo: 'widgets' };

interface Logged {
  level: string;
  message: string;
  meta?: Record<string, unknown>;
}

const recordingLogger = (into: Logged[]): GithubLogger => {
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => into.push({ level, message, meta });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
};

describe('GitHub App client against the fake GitHub', () => {
  let fake: FakeGithub;
  let inst: FakeInstallation;
  let registry: Registry;
  let logged: Logged[];

  const connect = (overrides: Partial<GithubAppOptions> = {}): Promise<GithubApp> =>
    createGithubApp({
      settings: { appId: fake.appId, privateKey: fake.appPrivateKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
      registry,
      logger: recordingLogger(logged),
      writeMinTimeMs: 5,
      retryAfterUnitMs: 10,
      ...overrides,
    });

  const statusesOf = (operation: string) => fake.requests.records.filter((r) => r.operation === operation).map((r) => r.status);

  beforeEach(async () => {
    fake = await FakeGithub.start();
    await fake.createRepo({ repo: 'acme/widgets' });
    inst = fake.install({ account: 'acme' });
    registry = new Registry();
    logged = [];
  });

  afterEach(async () => {
    await fake.webhooks.settled();
    const violations = [...fake.violations];
    await fake.stop();
    expect(violations).toEqual([]);
  });

  test('when several requests are made, some at once, then one token is minted and reused', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    await Promise.all([1, 2, 3].map(() => octokit.request('GET /repos/{owner}/{repo}', REPO)));
    await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...REPO, ref: 'heads/main' });
    expect(statusesOf('apps/create-installation-access-token')).toEqual([201]);
    expect(await github.installation(inst.id)).toBe(octokit);
  });

  test('when the first request of an installation is a write, then it gets its token and goes through', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    const main = (await fake.branchSha('acme/widgets', 'main')) as string;
    const created = await octokit.request('POST /repos/{owner}/{repo}/git/refs', { ...REPO, ref: 'refs/heads/first', sha: main });
    expect(created.status).toBe(201);
    expect(statusesOf('apps/create-installation-access-token')).toEqual([201]);
  });

  test('when the cached token nears the expiry GitHub gave it, then a new one is minted before it would be refused', async () => {
    let now = Date.now();
    const github = await connect({ now: () => now, tokenRefreshMarginMs: 5 * 60 * 1000 });
    const octokit = await github.installation(inst.id);
    await octokit.request('GET /repos/{owner}/{repo}', REPO);
    now += 54 * 60 * 1000;
    await octokit.request('GET /repos/{owner}/{repo}', REPO);
    expect(statusesOf('apps/create-installation-access-token')).toEqual([201]);
    now += 2 * 60 * 1000;
    await octokit.request('GET /repos/{owner}/{repo}', REPO);
    expect(statusesOf('apps/create-installation-access-token')).toEqual([201, 201]);
  });

  test('when the App signs with a key GitHub does not know, then its JWT is refused and nothing is retried', async () => {
    const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const github = await createGithubApp({
      settings: { appId: fake.appId, privateKey: wrongKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
      registry,
      logger: recordingLogger(logged),
      retryAfterUnitMs: 10,
    });
    await expect(github.installationIdFor('acme', 'widgets')).rejects.toMatchObject({ status: 401 });
    const octokit = await github.installation(inst.id);
    await expect(octokit.request('GET /repos/{owner}/{repo}', REPO)).rejects.toMatchObject({ status: 401 });
    expect(statusesOf('apps/get-repo-installation')).toEqual([401]);
    expect(statusesOf('apps/create-installation-access-token')).toEqual([401]);
  });

  test('when a secondary rate limit answers, then the request waits as long as retry-after says and succeeds', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    fake.faults.inject({ operation: 'pulls/list', kind: 'secondary-rate-limit', retryAfterSeconds: 7, times: 2 });
    fake.faults.inject({ operation: 'repos/get', kind: 'secondary-rate-limit', status: 429, retryAfterSeconds: 3 });
    await expect(octokit.request('GET /repos/{owner}/{repo}/pulls', REPO)).resolves.toMatchObject({ status: 200 });
    await expect(octokit.request('GET /repos/{owner}/{repo}', REPO)).resolves.toMatchObject({ status: 200 });
    expect(statusesOf('pulls/list')).toEqual([403, 403, 200]);
    expect(statusesOf('repos/get')).toEqual([429, 200]);
    const waits = logged.filter((l) => l.message === 'GitHub secondary rate limit').map((l) => l.meta?.retryAfterSeconds);
    expect(waits).toEqual([7, 7, 3]);
  });

  test('when the hourly limit is spent, then the request waits until x-ratelimit-reset and succeeds', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    fake.faults.inject({ operation: 'repos/get', kind: 'primary-rate-limit', resetInSeconds: 4 });
    await expect(octokit.request('GET /repos/{owner}/{repo}', REPO)).resolves.toMatchObject({ status: 200 });
    expect(statusesOf('repos/get')).toEqual([403, 200]);
    const wait = logged.find((l) => l.message === 'GitHub primary rate limit')?.meta?.retryAfterSeconds as number;
    // Until the reset second has passed: the reset is whole seconds, so 4 s ahead reads as 4 or 5, plus one.
    expect(wait).toBeGreaterThanOrEqual(4);
    expect(wait).toBeLessThanOrEqual(6);
  });

  test('when a secondary limit strikes in the middle of twenty writes, then every write succeeds and no two ever overlap', async () => {
    fake.behaviour.latencyMs = 5;
    const github = await connect();
    const octokit = await github.installation(inst.id);
    const main = (await fake.branchSha('acme/widgets', 'main')) as string;
    let created = 0;
    fake.faults.inject({
      operation: 'git/create-ref',
      kind: 'secondary-rate-limit',
      retryAfterSeconds: 2,
      times: 3,
      when: () => ++created >= 8,
    });
    const writes = Array.from({ length: 20 }, (_, i) =>
      octokit.request('POST /repos/{owner}/{repo}/git/refs', { ...REPO, ref: `refs/heads/railyard-merge/pr-${i}/t`, sha: main }),
    );
    const answers = await Promise.all(writes);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(statusesOf('git/create-ref').filter((s) => s === 403)).toHaveLength(3);
    expect(fake.requests.maxConcurrency((r) => r.operation === 'git/create-ref')).toBe(1);
  });

  test('when a read meets 5xx, then it is retried until it succeeds', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    fake.faults.inject({ operation: 'pulls/list', kind: 'server-error', status: 502, times: 2 });
    await expect(octokit.request('GET /repos/{owner}/{repo}/pulls', REPO)).resolves.toMatchObject({ status: 200 });
    expect(statusesOf('pulls/list')).toEqual([502, 502, 200]);
  });

  test('when a write meets 5xx, then it is not repeated: the caller re-reads and finds out what happened', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    const next = await fake.commit({ repo: 'acme/widgets', branch: 'topic', files: { 't.txt': 't' } });
    fake.faults.inject({ operation: 'git/update-ref', kind: 'server-error', afterApply: true });
    await expect(
      octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...REPO, ref: 'heads/main', sha: next, force: false }),
    ).rejects.toMatchObject({
      status: 502,
    });
    expect(statusesOf('git/update-ref')).toEqual([502]);
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...REPO, ref: 'heads/main' });
    expect(data.object.sha).toBe(next);
  });

  test('when a write is refused as not a fast-forward, then the 422 comes straight back', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    const main = (await fake.branchSha('acme/widgets', 'main')) as string;
    fake.faults.inject({ operation: 'git/update-ref', kind: 'not-fast-forward' });
    await expect(
      octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...REPO, ref: 'heads/main', sha: main, force: false }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('Update is not a fast forward'),
    });
    expect(statusesOf('git/update-ref')).toEqual([422]);
  });

  test('when requests are made, then they are counted by route template and status', async () => {
    const github = await connect();
    const octokit = await github.installation(inst.id);
    fake.faults.inject({ operation: 'pulls/get', kind: 'server-error', times: 1 });
    await fake.commit({ repo: 'acme/widgets', branch: 'feature', files: { 'f.txt': 'f' } });
    const pr = await fake.openPullRequest({ repo: 'acme/widgets', head: 'feature' });
    await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...REPO, pull_number: pr.number });
    await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...REPO, pull_number: pr.number });
    const samples = (await registry.getSingleMetric(GITHUB_REQUESTS_METRIC)?.get())?.values ?? [];
    const count = (route: string, status: string) => samples.find((s) => s.labels.route === route && s.labels.status === status)?.value;
    expect(count('GET /repos/{owner}/{repo}/pulls/{pull_number}', '502')).toBe(1);
    expect(count('GET /repos/{owner}/{repo}/pulls/{pull_number}', '200')).toBe(2);
    expect(count('POST /app/installations/{installation_id}/access_tokens', '201')).toBe(1);
  });

  test('when the App asks where it is installed, then it gets the installation or null', async () => {
    const github = await connect();
    await fake.createRepo({ repo: 'elsewhere/thing' });
    expect(await github.installationIdFor('acme', 'widgets')).toBe(inst.id);
    expect(await github.installationIdFor('elsewhere', 'thing')).toBeNull();
  });

  test('when the fake delivers webhooks, then the verifier accepts them and refuses them once tampered with', async () => {
    const receiver = await startReceiver();
    fake.setWebhookUrl(receiver.url);
    try {
      await fake.commit({ repo: 'acme/widgets', branch: 'feature', files: { 'f.txt': 'f' } });
      await fake.openPullRequest({ repo: 'acme/widgets', head: 'feature' });
      // check_suite.requested is emitted from a timer after the push (as GitHub does it), so it may
      // not be queued yet when settled() looks: wait for it to be emitted, then for every delivery.
      await eventually(() => fake.webhooks.deliveries.some((d) => d.event === 'check_suite'), 'the check_suite webhook was emitted');
      await fake.webhooks.settled();
      const verifier = await createWebhookVerifier(fake.webhookSecret);
      const results = await Promise.all(receiver.received.map((hook) => verifier.verify(hook.body, hook.headers)));
      expect(results.map((r) => (r.ok && r.known ? r.event.name : 'rejected')).sort()).toEqual(['check_suite', 'pull_request', 'push']);
      const hook = receiver.received[0];
      expect(await verifier.verify(`${hook?.body} `, hook?.headers ?? {})).toEqual({ ok: false, reason: 'invalid-signature' });
    } finally {
      await receiver.close();
    }
  });
});
