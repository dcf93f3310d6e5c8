import type { Receiver } from '@railyard/testkit';
import {
  NO_FAIL_CHECK,
  TOKENS,
  client,
  configureCi,
  eventually,
  makeWorld,
  openPrWithFile,
  prReaches,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';
import { checkDelivery, receiverPool, type Checked } from './support/webhook-checks';

jest.setTimeout(240_000);
// Patience for seven PRs tested and merged one after another (the Slack test waits behind the kill test's).
const SEVEN_RUNS_MS = 180_000;

let world: World;
let server: RunningProcess | undefined;
const receivers = receiverPool();
// The receivers listen on 127.0.0.1: the server is told to allow that address, and only that one.
// Retries start at 200 ms so a recovering receiver is served within the test's patience.
const ENV = { RAILYARD_WEBHOOKS_ALLOW_NETWORKS: '127.0.0.1/32', RAILYARD_WEBHOOKS_RETRY_MIN_MS: '200' };

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: NO_FAIL_CHECK });
  server = await startEmbedded(world, ENV);
  expect((await client(server.url, TOKENS.admin).createQueue({ concurrency: 1 })).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await receivers.stopAll();
  await world?.cleanup();
});

const receiver = (): Promise<Receiver> => receivers.start();

const admin = () => client((server as RunningProcess).url, TOKENS.admin);

const createEndpoint = async (body: object): Promise<{ endpointId: string; secret: string }> => {
  const res = await admin().post('/createWebhookEndpoint', body);
  expect(res.status).toBe(200);
  return { endpointId: res.body.endpoint.endpointId as string, secret: res.body.secret as string };
};

/**
 * Every delivery checked, then the first of each id in arrival order. A repeat of an id must be the
 * same message; only its link may differ, since without RAILYARD_PUBLIC_URL it names the port the
 * restarted server listens on.
 */
const distinct = (r: Receiver, secret: string): Checked[] => {
  const seen = new Map<string, Record<string, unknown>>();
  const out: Checked[] = [];
  for (const m of r.received) {
    const checked = checkDelivery(secret, m);
    const { http_details_url: _link, ...same } = checked.payload;
    const before = seen.get(checked.id);
    if (before !== undefined) {
      expect(same).toEqual(before);
      continue;
    }
    seen.set(checked.id, same);
    out.push(checked);
  }
  return out;
};

const ofPr = (messages: Checked[], pr: number): string[] => messages.filter((m) => m.payload.pr_number === pr).map((m) => m.type);

describe('outgoing webhooks, end to end', () => {
  it('when a PR lives its whole life, then a receiver gets submitted, queued, testing, merged, signed and valid against Trunk', async () => {
    const r = await receiver();
    const { secret } = await createEndpoint({ url: r.url });
    await openPrWithFile(world, 1, 'one\n');
    expect((await client(server!.url, TOKENS.write).submit(1)).status).toBe(200);
    expect((await prReaches(server!.url, 1, ['merged', 'failed', 'cancelled'])).state).toBe('merged');
    await eventually('the merge delivered', async () => (ofPr(distinct(r, secret), 1).includes('pull_request.merged') ? true : undefined));
    expect(ofPr(distinct(r, secret), 1)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.merged',
    ]);
  });

  it('when the server is killed with -9 mid-stream, then after restart nothing is lost and repeats carry the same id', async () => {
    const r = await receiver();
    r.delayMs = 1000; // slow while the messages are made, so the kill lands with most still to send
    const { secret } = await createEndpoint({ url: r.url });
    // A paused queue: submissions and state changes make the messages, no CI run has to finish first.
    expect((await admin().updateQueue({ state: 'paused' })).status).toBe(200);
    const writer = client(server!.url, TOKENS.write);
    for (let n = 10; n < 16; n++) {
      await openPrWithFile(world, n, `pr ${n}\n`);
      expect((await writer.submit(n)).status).toBe(200);
    }
    // Whether a PR is also `queued` in a paused queue depends on when its readiness is known: not counted on.
    const complete = (got: Checked[]): boolean => got.filter((m) => m.type === 'pull_request.submitted').length >= 6;
    await eventually('a few deliveries', async () => (r.received.length >= 3 ? true : undefined));
    await server!.kill9();
    const before = distinct(r, secret).map((m) => m.id);
    expect(complete(distinct(r, secret))).toBe(false);
    r.delayMs = 0;
    server = await startEmbedded(world, ENV);
    await eventually('every message after the restart', async () => (complete(distinct(r, secret)) ? true : undefined), 120_000);
    const got = distinct(r, secret);
    expect(got.map((m) => m.id)).toEqual(expect.arrayContaining(before));
    expect(got[0]).toMatchObject({ type: 'queue.state_changed', payload: { status: 'paused' } });
    for (let n = 10; n < 16; n++)
      expect(['pull_request.submitted', 'pull_request.submitted,pull_request.queued']).toContain(ofPr(got, n).join());
    expect((await admin().updateQueue({ state: 'running' })).status).toBe(200);
  });

  it('when a receiver answers 500 and then recovers, then it gets every message, in order, and the log shows the failures', async () => {
    const r = await receiver();
    let failures = 4;
    r.answer = () => (failures-- > 0 ? 500 : 200);
    const { endpointId, secret } = await createEndpoint({ url: r.url, events: ['queue.state_changed'] });
    expect((await admin().updateQueue({ state: 'paused' })).status).toBe(200);
    expect((await admin().updateQueue({ state: 'running' })).status).toBe(200);
    await eventually('both state changes', async () => (distinct(r, secret).length >= 2 ? true : undefined));
    expect(distinct(r, secret).map((m) => m.payload.status)).toEqual(['paused', 'running']);
    const log = await admin().post('/listWebhookDeliveries', { endpointId });
    expect(log.status).toBe(200);
    expect(log.body.deliveries.filter((d: { ok: boolean }) => !d.ok).map((d: { status: number }) => d.status)).toEqual([
      500, 500, 500, 500,
    ]);
    const again = await admin().post('/resendWebhookDelivery', { endpointId, attemptId: log.body.deliveries[0].attemptId });
    expect(again.body).toMatchObject({ ok: true, attempt: 0, messageId: log.body.deliveries[0].messageId });
  });

  it('when the endpoint URL is a private or metadata address, then it is refused with a 400 JSON error and nothing is created', async () => {
    for (const url of ['http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/', 'ftp://example.com/']) {
      const res = await admin().post('/createWebhookEndpoint', { url });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'INVALID_WEBHOOK_URL', fields: [{ field: 'url' }] } });
    }
    const listed = await admin().post('/listWebhookEndpoints', {});
    expect(listed.body.endpoints.map((e: { url: string }) => e.url)).not.toContain('http://10.0.0.1/hook');
    const readOnly = await client(server!.url, TOKENS.read).post('/listWebhookEndpoints', {});
    expect(readOnly.status).toBe(403);
  });

  it('when a Slack destination follows the queue, then it posts readable text for merged and paused with dashboard links', async () => {
    const r = await receiver();
    await createEndpoint({ url: r.url, kind: 'slack' });
    await openPrWithFile(world, 30, 'thirty\n');
    expect((await client(server!.url, TOKENS.write).submit(30)).status).toBe(200);
    // At concurrency 1 the kill test's six PRs are tested and merged first, one CI run each: at load 11
    // the seventh merged after 77 s, past the default 60 s, with the queue moving all along.
    expect((await prReaches(server!.url, 30, ['merged', 'failed', 'cancelled'], SEVEN_RUNS_MS)).state).toBe('merged');
    expect((await admin().updateQueue({ state: 'paused' })).status).toBe(200);
    // The PRs of the kill test merge meanwhile too: this test looks at its own PR's post and the pause.
    const posts = () => r.received.map((m) => JSON.parse(m.body) as { text: string; blocks: { type: string }[] });
    const merged = () => posts().find((p) => p.text.includes('/prs/30|'));
    const paused = () => posts().find((p) => p.text.includes('is now paused'));
    await eventually('the two Slack posts', async () => (merged() && paused() ? true : undefined));
    expect(merged()?.text).toMatch(
      /^:white_check_mark: Merged <http:\/\/[^|]+\/queues\/[^|]+\/prs\/30\|#30 [^>]*> by .+ into acme\/widgets → main$/,
    );
    expect(paused()?.text).toMatch(
      /^:double_vertical_bar: Queue <http:\/\/[^|]+\/queues\/[^|]+\|acme\/widgets → main> is now paused \(was running\)$/,
    );
    expect(posts().every((p) => p.blocks[0]?.type === 'section')).toBe(true);
    expect((await admin().updateQueue({ state: 'running' })).status).toBe(200);
  });
});
