import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import { openGithubApi, type GithubApiParts } from '@railyard/api';
import { queueIdOf, queueStreamOf, type QueueEvent } from '@railyard/domain';
import { ENGINE_ACTOR, engineWriter } from '@railyard/engine';
import type { EventStore, RecordedEvent } from '@railyard/eventstore';
import { DELIVERY_STREAM_PREFIX } from '@railyard/github';
import { createLogger } from '@railyard/observability';
import { openEventStore, type RuntimeConfig } from '@railyard/runtime';
import { eventually as eventuallyWithin, FakeGithub, makeTempDir, removeTempDir, startTestRunOf } from '@railyard/testkit';
import { startServer, type RunningServer } from './server';

/** Webhooks over the real HTTP server of the embedded process, sent by the fake GitHub (docs/github.md). */

const TOKEN = 'admin-secret-0123456789abcdef';
const REPO = 'acme/widgets';
const eventually = (check: () => boolean | Promise<boolean>, what: string) => eventuallyWithin(check, what, 20_000);
const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const STREAM = queueStreamOf(queueIdOf(repo, 'main'));

jest.setTimeout(60_000);

let fake: FakeGithub;
let server: RunningServer;
let store: EventStore;
let github: GithubApiParts;
let dir: string;
let config: Partial<RuntimeConfig>;
const saved = { ...process.env };

const api = async (p: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}/v1${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': TOKEN },
    body: JSON.stringify(body),
  });

const queueEvents = async (): Promise<QueueEvent[]> =>
  (await store.readStream(STREAM)).map((e) => ({ type: e.type, data: e.data }) as QueueEvent);
const deliveries = async (): Promise<RecordedEvent[]> =>
  (await store.readAll(null, 10_000)).filter((e) => e.streamId.startsWith(DELIVERY_STREAM_PREFIX));
const settled = () => fake.webhooks.settled();
const lastAttempt = () => fake.webhooks.deliveries.at(-1)?.attempts.at(-1)?.status;

const openPr = async (branch: string, user = 'alice') => {
  await fake.commit({ repo: REPO, branch, files: { [`${branch}.txt`]: `${branch}\n` }, user });
  const pr = await fake.openPullRequest({ repo: REPO, head: branch, user });
  // GitHub works mergeability out after the first read; read once so the submission finds it known.
  const octokit = await github.app.installation(installationId);
  await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner: 'acme', repo: 'widgets', pull_number: pr.number });
  await eventually(() => fake.pullRequest(REPO, pr.number).mergeability !== null, 'mergeability is known');
  return pr;
};
let installationId: number;

/** The reactions on a comment, as GitHub holds them. */
const reactionsOf = (comment: { id: number; issueNumber: number }): string[] =>
  fake
    .comments(REPO, comment.issueNumber)
    .filter((c) => c.id === comment.id)
    .flatMap((c) => c.reactions.map((r) => r.content));

beforeEach(async () => {
  dir = await makeTempDir('railyard-github-');
  // The engine (and the check runs beside it) stays off: these tests drive the queue's engine side by hand.
  process.env.RAILYARD_ENGINE = 'off';
  fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 0 } });
  await fake.createRepo({ repo: REPO, files: { 'README.md': '# widgets\n' } });
  installationId = fake.install({ account: 'acme' }).id;
  fake.setCollaborator(REPO, 'alice', 'write');
  fake.setCollaborator(REPO, 'bob', 'read');
  const logger = createLogger('test', 'error');
  github = await openGithubApi(
    { appId: fake.appId, privateKey: fake.appPrivateKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
    logger,
    { host: 'github.com', app: { writeMinTimeMs: 0, retryAfterUnitMs: 1 } },
  );
  config = {
    port: 0,
    dataDir: dir,
    gitRoot: path.join(dir, 'git'),
    apiTokens: `admin:${TOKEN}:admin`,
    eventStore: { kind: 'sqlite', file: path.join(dir, 'events.sqlite'), synchronous: 'normal' },
  };
  server = await startServer(config, { logger, github });
  store = await openEventStore({ ...(config as RuntimeConfig) });
  fake.setWebhookUrl(`${server.url}/github/webhooks`);
  expect((await api('/createQueue', { repo, targetBranch: 'main' })).status).toBe(200);
});

afterEach(async () => {
  await fake.webhooks.settled();
  const violations = [...fake.violations];
  await server.close();
  await store.close();
  await fake.stop();
  process.env = { ...saved };
  await removeTempDir(dir);
  expect(violations).toEqual([]);
});

const post = (body: string, headers: Record<string, string>) =>
  fetch(`${server.url}/github/webhooks`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
const sign = (body: string, secret = fake.webhookSecret) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('POST /github/webhooks', () => {
  it('when the signature is wrong or missing, then the answer is 401 JSON and nothing is recorded', async () => {
    const before = await store.headPosition();
    const body = JSON.stringify({ action: 'created', installation: { id: installationId }, repositories: [] });
    const headers = { 'x-github-event': 'installation', 'x-github-delivery': randomUUID() };
    const wrong = await post(body, { ...headers, 'x-hub-signature-256': sign(body, 'not-the-secret-at-all') });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'WEBHOOK_SIGNATURE_INVALID' } });
    const missing = await post(body, headers);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'WEBHOOK_SIGNATURE_INVALID' } });
    expect(await store.headPosition()).toBe(before);
  });

  it('when a correctly signed event is not one Railyard consumes, then it is acknowledged with 202 and nothing is recorded', async () => {
    const before = await store.headPosition();
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const res = await post(body, { 'x-github-event': 'ping', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': sign(body) });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ignored: 'event ping' });
    const unknown = JSON.stringify({ action: 'whatever' });
    const res2 = await post(unknown, {
      'x-github-event': 'no_such_event',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(unknown),
    });
    expect(res2.status).toBe(202);
    expect(await store.headPosition()).toBe(before);
  });

  it('when /railyard merge comes from a writer, then the PR is queued with its priority and the comment gets +1', async () => {
    const pr = await openPr('feature');
    const comment = fake.comment(REPO, pr.number, 'alice', 'Ready.\n/railyard merge --priority high');
    await settled();
    expect(lastAttempt()).toBe(200);
    const submitted = (await queueEvents()).filter((e) => e.type === 'PrSubmitted');
    expect(submitted).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ prNumber: pr.number, priorityName: 'high', headSha: pr.headSha, state: 'pending' }),
      }),
    ]);
    expect(reactionsOf(comment)).toEqual(['+1']);
    // The answer is the reaction (and the check run, which the engine's process writes: test/e2e/github.e2e.test.ts), not a comment.
    expect(fake.comments(REPO, pr.number)).toHaveLength(1);
  });

  it('when the same delivery comes again, then nothing is done twice and the answer says duplicate', async () => {
    const pr = await openPr('feature');
    fake.comment(REPO, pr.number, 'alice', '/railyard merge');
    await settled();
    const first = fake.webhooks.deliveries.at(-1);
    if (!first) throw new Error('no delivery');
    const eventsBefore = (await queueEvents()).length;
    fake.webhooks.redeliver(first.id);
    await settled();
    expect(first.attempts.map((a) => a.status)).toEqual([200, 200]);
    expect((await queueEvents()).length).toBe(eventsBefore);
    const recorded = (await deliveries()).filter((e) => e.streamId === DELIVERY_STREAM_PREFIX + first.id);
    expect(recorded.map((e) => e.type)).toEqual(['GithubWebhookReceived', 'GithubWebhookHandled']);
  });

  /** The same body GitHub signed once, sent again under a fresh `x-github-delivery`: a replayed request. */
  const replay = async (delivery: { event: string; payload: unknown }) => {
    const body = JSON.stringify(delivery.payload);
    const res = await post(body, {
      'x-github-event': delivery.event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const lastDelivery = (event: string, action: string) => {
    const found = fake.webhooks.deliveries.filter((d) => d.event === event && d.action === action).at(-1);
    if (!found) throw new Error(`no ${event}.${action} delivery`);
    return found;
  };

  it('when a /railyard merge comes again under a fresh delivery id after an admin cancelled the PR, then the PR stays cancelled', async () => {
    const pr = await openPr('feature');
    fake.comment(REPO, pr.number, 'alice', '/railyard merge');
    await settled();
    expect((await api('/cancelPullRequest', { repo, targetBranch: 'main', pr: { number: pr.number } })).status).toBe(200);
    const before = (await queueEvents()).length;
    const again = await replay(lastDelivery('issue_comment', 'created'));
    expect(again).toEqual({ status: 200, body: expect.objectContaining({ duplicate: true, state: 'handled' }) });
    expect((await queueEvents()).length).toBe(before);
    expect((await queueEvents()).at(-1)).toMatchObject({ type: 'PrCancelled', data: { prNumber: pr.number, reason: 'API_REQUESTED' } });
  });

  it('when a pull request event comes again under a fresh delivery id, then it does not cancel the PR queued again since', async () => {
    const pr = await openPr('feature');
    fake.comment(REPO, pr.number, 'alice', '/railyard merge');
    await settled();
    await fake.closePullRequest(REPO, pr.number, 'alice');
    await settled();
    const closed = lastDelivery('pull_request', 'closed');
    await fake.reopenPullRequest(REPO, pr.number, 'alice');
    fake.comment(REPO, pr.number, 'alice', '/railyard merge');
    await settled();
    expect((await queueEvents()).filter((e) => e.type === 'PrSubmitted')).toHaveLength(2);
    const again = await replay(closed);
    expect(again).toEqual({ status: 200, body: expect.objectContaining({ duplicate: true }) });
    expect((await queueEvents()).filter((e) => e.type === 'PrCancelled')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ prNumber: pr.number, reason: 'PR_CLOSED' }) }),
    ]);
  });

  it('when a user without write access comments a command, then nothing is queued and the comment gets confused', async () => {
    const pr = await openPr('feature');
    const comment = fake.comment(REPO, pr.number, 'bob', '/railyard merge');
    const stranger = fake.comment(REPO, pr.number, 'mallory', '/trunk merge');
    await settled();
    expect((await queueEvents()).filter((e) => e.type === 'PrSubmitted')).toEqual([]);
    expect(reactionsOf(comment)).toEqual(['confused']);
    expect(reactionsOf(stranger)).toEqual(['confused']);
  });

  it('when /railyard cancel follows a merge, then the PR is cancelled; a command the queue refuses gets confused', async () => {
    const pr = await openPr('feature');
    fake.comment(REPO, pr.number, 'alice', '/trunk merge');
    const cancel = fake.comment(REPO, pr.number, 'alice', '/railyard cancel');
    const again = fake.comment(REPO, pr.number, 'alice', '/railyard cancel');
    const bad = fake.comment(REPO, pr.number, 'alice', '/railyard merge --priority 999');
    await settled();
    expect((await queueEvents()).filter((e) => e.type === 'PrCancelled')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ prNumber: pr.number, reason: 'API_REQUESTED' }) }),
    ]);
    expect(reactionsOf(cancel)).toEqual(['+1']);
    expect(reactionsOf(again)).toEqual(['confused']);
    expect(reactionsOf(bad)).toEqual(['confused']);
  });

  it('when /railyard restart comes for a PR under test, then its tests restart', async () => {
    const pr = await openPr('feature');
    fake.comment(REPO, pr.number, 'alice', '/railyard merge');
    await settled();
    const engine = engineWriter(store, () => new Date());
    await engine.execute(STREAM, await startTestRunOf(fake, REPO, pr, ['ci']), { actor: ENGINE_ACTOR, correlationId: 'test' });
    const restart = fake.comment(REPO, pr.number, 'alice', '/railyard restart');
    await settled();
    expect((await queueEvents()).filter((e) => e.type === 'TestsRestarted')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ prNumber: pr.number, reason: 'TESTS_RESTARTED_BY_API_REQUEST' }) }),
    ]);
    expect(reactionsOf(restart)).toEqual(['+1']);
  });

  it('when a queued PR is pushed to, then it is cancelled as pushed to; when another is closed, as closed', async () => {
    const pushed = await openPr('feature');
    const closed = await openPr('other');
    fake.comment(REPO, pushed.number, 'alice', '/railyard merge');
    fake.comment(REPO, closed.number, 'alice', '/railyard merge');
    await settled();
    await fake.commit({ repo: REPO, branch: 'feature', files: { 'feature.txt': 'again\n' }, user: 'alice' });
    await fake.closePullRequest(REPO, closed.number, 'alice');
    await settled();
    const cancelled = (await queueEvents()).filter((e) => e.type === 'PrCancelled').map((e) => e.data);
    expect(cancelled).toEqual([
      expect.objectContaining({ prNumber: pushed.number, reason: 'PR_PUSHED_TO' }),
      expect.objectContaining({ prNumber: closed.number, reason: 'PR_CLOSED' }),
    ]);
  });

  it('when a PR whose tests passed is closed (Railyard closes a squashed PR after landing it), then the webhook does not cancel it', async () => {
    const pr = await openPr('feature');
    fake.comment(REPO, pr.number, 'alice', '/railyard merge');
    await settled();
    const engine = engineWriter(store, () => new Date());
    const start = await startTestRunOf(fake, REPO, pr, ['ci']);
    const testRunId = start.testRunId;
    await engine.execute(STREAM, start, { actor: ENGINE_ACTOR, correlationId: 'test' });
    await engine.execute(
      STREAM,
      { type: 'ReportTestStatus', testRunId, context: 'ci', state: 'success' },
      { actor: ENGINE_ACTOR, correlationId: 'test' },
    );
    await engine.execute(STREAM, { type: 'CompleteTestRun', testRunId, outcome: 'passed' }, { actor: ENGINE_ACTOR, correlationId: 'test' });
    await fake.closePullRequest(REPO, pr.number);
    await settled();
    expect(lastAttempt()).toBe(200);
    expect((await queueEvents()).filter((e) => e.type === 'PrCancelled')).toEqual([]);
  });

  it('when the queued base is pushed to, then the delivery is recorded with a branch hint; a push elsewhere is ignored unrecorded', async () => {
    await fake.commit({ repo: REPO, branch: 'main', files: { 'main.txt': 'moved\n' } });
    await fake.commit({ repo: REPO, branch: 'docs', files: { 'docs.txt': 'moved\n' } });
    await settled();
    const pushes = fake.webhooks.deliveries.filter((d) => d.event === 'push');
    expect(pushes.map((d) => d.attempts.at(-1)?.status)).toEqual([200, 202]);
    const recorded = await deliveries();
    const hints = recorded.flatMap((e) => (e.data as { hints: unknown[] }).hints ?? []);
    expect(hints).toContainEqual({ kind: 'branch', repo, branch: 'main' });
    expect(hints).not.toContainEqual(expect.objectContaining({ branch: 'docs' }));
  });
});
