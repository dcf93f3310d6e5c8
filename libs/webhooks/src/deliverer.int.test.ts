import { mkdtempSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, type EventStore } from '@railyard/eventstore';
import { Webhook } from 'standardwebhooks';
import { WebhookDeliverer } from './deliverer';
import { SqliteDeliveryStore } from './delivery-store';
import { EndpointService } from './endpoint-service';
import { newSigningSecret } from './signing';
import { AddressPolicy } from './ssrf';
import { LogBuilder, trunkSchemaProblem } from './testing/log';
import { caseOf, TestsLogBuilder } from './testing/tests-log';
import { Receiver } from '@railyard/testkit';
import { eventually } from './testing/eventually';

const META = { actor: 'test', correlationId: 'c' };
const policy = new AddressPolicy(['127.0.0.1/32']);

describe('WebhookDeliverer', () => {
  let dir: string;
  let events: EventStore;
  let store: SqliteDeliveryStore;
  let endpoints: EndpointService;
  const receivers: Receiver[] = [];
  const deliverers: WebhookDeliverer[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'webhooks-'));
    events = new SqliteEventStore({ file: join(dir, 'events.sqlite') });
    store = new SqliteDeliveryStore(join(dir, 'webhooks.sqlite'));
    endpoints = new EndpointService(events);
  });

  afterEach(async () => {
    await Promise.all(deliverers.splice(0).map((d) => d.stop()));
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
    await store.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const receiver = async (): Promise<Receiver> => {
    const r = await new Receiver().start();
    receivers.push(r);
    return r;
  };

  const deliverer = (
    retry = { minMs: 20, maxMs: 50, maxAttempts: 1000 },
    loadBlob?: (digest: string) => Promise<Buffer | null>,
  ): WebhookDeliverer => {
    const d = new WebhookDeliverer({
      ...(loadBlob ? { loadBlob } : {}),
      eventStore: events,
      endpoints,
      store,
      policy,
      publicUrl: () => 'http://railyard.test',
      retry,
      pollMs: 20,
    });
    deliverers.push(d);
    d.start();
    return d;
  };

  const create = async (url: string, secret = newSigningSecret(), kind: 'webhook' | 'slack' = 'webhook', id = 'ep1') => {
    await endpoints.execute(
      {
        type: 'create',
        endpointId: id,
        kind,
        settings: { url, description: '', events: [], repos: [], targetBranches: [] },
        secret,
        startAfter: await events.headPosition(),
      },
      META,
    );
    return secret;
  };

  const write = async (log: LogBuilder): Promise<void> => {
    for (const e of log.events)
      await events.append(e.streamId, [{ eventId: e.eventId, type: e.type, data: e.data, metadata: e.metadata }], 'any');
  };

  const life = () =>
    new LogBuilder()
      .created()
      .submitted(1)
      .testing('r1', [1])
      .add('PrMerged', { prNumber: 1, mergeSha: 'm', testRunId: 'r1', reason: 'MERGE_GRAPH_MERGE' });

  it('when a PR lives its life, then the receiver gets every message in order, signed and valid against Trunk', async () => {
    const r = await receiver();
    const secret = await create(r.url);
    deliverer();
    await write(life());
    await eventually(() => r.received.length >= 4, 'four deliveries');
    const wh = new Webhook(secret);
    const payloads = r.received.map((m) => wh.verify(m.body, m.headers as Record<string, string>) as { type: string });
    expect(payloads.map((p) => p.type)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.merged',
    ]);
    for (const p of payloads) expect(trunkSchemaProblem(p.type, p)).toBeUndefined();
  });

  it('when the receiver answers 500 then recovers, then it gets everything in order, and the log shows the failures', async () => {
    const r = await receiver();
    let failures = 3;
    r.answer = () => (failures-- > 0 ? 500 : 200);
    await create(r.url);
    deliverer();
    await write(life());
    await eventually(() => r.received.filter((m) => m.body.includes('merged')).length >= 1, 'the merge delivered');
    const firstOfEach = [...new Map(r.received.map((m) => [m.headers['webhook-id'], JSON.parse(m.body).type as string])).values()];
    expect(firstOfEach).toEqual(['pull_request.submitted', 'pull_request.queued', 'pull_request.testing', 'pull_request.merged']);
    const log = await store.attempts('ep1', 50);
    expect(log.filter((a) => !a.ok).map((a) => [a.status, a.responseExcerpt])).toEqual([
      [500, 'receiver is down'],
      [500, 'receiver is down'],
      [500, 'receiver is down'],
    ]);
  });

  it('when the deliverer stops mid-stream and starts again, then nothing is lost and repeats carry the same id', async () => {
    const r = await receiver();
    await create(r.url);
    const first = deliverer();
    const log = life();
    for (let n = 2; n <= 6; n++) log.submitted(n);
    await write(log);
    await eventually(() => r.received.length >= 3, 'some deliveries');
    await first.stop();
    deliverer();
    await eventually(() => new Set(r.received.map((m) => m.headers['webhook-id'])).size >= 4 + 10, 'all deliveries');
    const ids = r.received.map((m) => m.headers['webhook-id'] as string);
    const bodies = new Map<string, string>();
    for (const m of r.received) {
      const id = m.headers['webhook-id'] as string;
      if (bodies.has(id)) expect(m.body).toBe(bodies.get(id));
      bodies.set(id, m.body);
    }
    expect(new Set(ids).size).toBe(14);
  });

  it('when the retries run out, then the endpoint is disabled with the reason and later events wait for it', async () => {
    const r = await receiver();
    r.answer = () => 503;
    await create(r.url);
    deliverer({ minMs: 10, maxMs: 20, maxAttempts: 3 });
    await write(life());
    await eventually(async () => (await endpoints.get('ep1'))?.enabled === false, 'the endpoint disabled');
    expect((await endpoints.get('ep1'))?.disabled).toMatchObject({
      reason: 'DELIVERY_FAILED',
      detail: expect.stringContaining('HTTP 503'),
    });
    expect(r.received).toHaveLength(3);
    r.answer = () => 200;
    await endpoints.execute({ type: 'update', endpointId: 'ep1', changes: {}, enabled: true }, META);
    await eventually(() => r.received.filter((m) => m.body.includes('"pull_request.merged"')).length === 1, 'the rest after re-enabling');
  });

  it('when one endpoint never answers well, then another endpoint still gets everything', async () => {
    const bad = await receiver();
    bad.answer = () => 500;
    const good = await receiver();
    await create(bad.url, newSigningSecret(), 'webhook', 'bad');
    await create(good.url, newSigningSecret(), 'webhook', 'good');
    deliverer();
    await write(life());
    await eventually(() => good.received.length >= 4, 'the good endpoint served');
    expect(bad.received.every((m) => m.body.includes('pull_request.submitted'))).toBe(true);
  });

  it('when the endpoint URL is a private address the policy does not allow, then nothing is sent and the log says refused', async () => {
    const r = await receiver();
    await create(r.url.replace('127.0.0.1', '127.0.0.2'));
    deliverer({ minMs: 10, maxMs: 20, maxAttempts: 2 });
    await write(life());
    await eventually(async () => (await endpoints.get('ep1'))?.enabled === false, 'the endpoint disabled');
    const log = await store.attempts('ep1', 10);
    expect(log[0]).toMatchObject({
      status: null,
      ok: false,
      error: expect.stringMatching(/^refused: 127\.0\.0\.2 is not a public address/),
    });
    expect(r.received).toHaveLength(0);
  });

  it('when the endpoint is Slack, then it posts text for the merge and nothing for the other states', async () => {
    const r = await receiver();
    await create(r.url, newSigningSecret(), 'slack');
    deliverer();
    await write(life().add('QueueStateChanged', { from: 'running', to: 'paused' }));
    await eventually(() => r.received.length >= 2, 'two Slack posts');
    const posts = r.received.map((m) => JSON.parse(m.body) as { text: string; blocks: unknown[] });
    expect(posts.map((p) => p.text.split(' ')[0])).toEqual([':white_check_mark:', ':double_vertical_bar:']);
    expect(posts[0]?.text).toContain('<http://railyard.test/queues/github.com~acme~rocket~main/prs/1|#1 PR 1>');
  });

  it('when a test turns broken and its cases are in the blob store, then an endpoint filtered to a branch gets test_case.status_changed naming it', async () => {
    const r = await receiver();
    await endpoints.execute(
      {
        type: 'create',
        endpointId: 'tests',
        kind: 'webhook',
        settings: { url: r.url, description: '', events: ['test_case.status_changed'], repos: [], targetBranches: ['main'] },
        secret: newSigningSecret(),
        startAfter: await events.headPosition(),
      },
      META,
    );
    // The blob store's format (decodeCasesBlob): a gzip JSON array of the cases.
    const blob = gzipSync(JSON.stringify([caseOf('failed', 'boom')]));
    const digest = 'e'.repeat(64);
    deliverer(undefined, async (d) => (d === digest ? blob : null));
    const log = new TestsLogBuilder().upload('failed', { blob: digest }).statusChanged('BROKEN', { reason: 'consecutive_failures: 1' });
    for (const e of log.events)
      await events.append(e.streamId, [{ eventId: e.eventId, type: e.type, data: e.data, metadata: e.metadata }], 'any');
    await eventually(() => r.received.length >= 1, 'the status change delivered');
    const payload = JSON.parse(r.received[0]!.body) as { type: string; test_case: { name: string; failure_rate_last_7d: number } };
    expect(payload).toMatchObject({ type: 'test_case.status_changed', test_case: { name: 'charges the card', failure_rate_last_7d: 1 } });
    expect(trunkSchemaProblem(payload.type, payload)).toBeUndefined();
  });

  it('when the secret is rotated and an event follows at once, then its message is signed with the new secret', async () => {
    const r = await receiver();
    const before = await create(r.url);
    deliverer();
    await write(new LogBuilder().created().submitted(1));
    await eventually(() => r.received.length >= 2, 'the submission delivered');
    const after = newSigningSecret();
    await endpoints.execute({ type: 'rotate', endpointId: 'ep1', secret: after }, META);
    // Appended right away: sooner than the deliverer's next look at the endpoint list.
    const next = new LogBuilder().created().submitted(1).add('PrCancelled', { prNumber: 1, reason: 'PR_CLOSED' });
    const cancel = next.events.at(-1)!;
    await events.append(cancel.streamId, [{ eventId: 'late', type: cancel.type, data: cancel.data, metadata: cancel.metadata }], 'any');
    await eventually(() => r.received.some((m) => m.body.includes('pull_request.canceled')), 'the cancel delivered');
    const canceled = r.received.filter((m) => m.body.includes('pull_request.canceled'));
    for (const m of canceled) expect(() => new Webhook(after).verify(m.body, m.headers as Record<string, string>)).not.toThrow();
    for (const m of r.received.slice(0, 2))
      expect(() => new Webhook(before).verify(m.body, m.headers as Record<string, string>)).not.toThrow();
  });
});
