import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { queueStreamOf, queueIdOf } from '@railyard/domain';
import { SqliteEventStore } from '@railyard/eventstore';
import { createLogger } from '@railyard/observability';
import { Receiver } from '@railyard/testkit';
import { AddressPolicy, EndpointService, newSigningSecret, RedisDeliveryStore, WebhookDeliverer } from '@railyard/webhooks';
import { RedisEndpointLeases } from './webhooks-distributed';

const REDIS_URL = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REPO = { host: 'github.com', owner: 'acme', name: 'rocket' };
const STREAM = queueStreamOf(queueIdOf(REPO, 'main'));

const until = async (check: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('webhooks in the distributed shape', () => {
  it('when two replicas deliver, then one sends under the lease, and after it stops the other goes on from the shared checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-dist-'));
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const prefix = `ry:{test-${randomUUID().slice(0, 8)}}:`;
    const namespace = `test-${randomUUID().slice(0, 8)}`;
    const events = new SqliteEventStore({ file: join(dir, 'events.sqlite') });
    const receiver = await new Receiver().start();
    const logger = createLogger('test', 'error');
    const sent = { a: 0, b: 0 };
    const running: WebhookDeliverer[] = [];
    const replica = (name: 'a' | 'b') => {
      const d = new WebhookDeliverer({
        eventStore: events,
        endpoints: new EndpointService(events),
        store: new RedisDeliveryStore(redis, prefix),
        policy: new AddressPolicy(['127.0.0.1/32']),
        publicUrl: () => 'http://railyard.test',
        leases: new RedisEndpointLeases({ redis, namespace, ttlMs: 1_000, logger }),
        pollMs: 20,
        onDelivered: () => {
          sent[name]++;
        },
      });
      d.start();
      running.push(d);
      return d;
    };
    try {
      await new EndpointService(events).execute(
        {
          type: 'create',
          endpointId: 'ep',
          kind: 'webhook',
          settings: { url: receiver.url, description: '', events: [], repos: [], targetBranches: [] },
          secret: newSigningSecret(),
          startAfter: null,
        },
        { actor: 'test', correlationId: 'c' },
      );
      const a = replica('a');
      const b = replica('b');
      const append = (type: string, data: object) =>
        events.append(
          STREAM,
          [
            {
              eventId: randomUUID(),
              type,
              data: { ...data, at: new Date().toISOString() },
              metadata: { schemaVersion: 1, actor: 't', correlationId: 'c', at: '' },
            },
          ],
          'any',
        );
      await append('QueueCreated', {
        queueId: queueIdOf(REPO, 'main'),
        repo: REPO,
        branch: 'main',
        settings: {},
        requiredStatuses: [],
        state: 'running',
      });
      await append('QueueStateChanged', { from: 'running', to: 'paused' });
      await until(() => sent.a + sent.b >= 1, 'the first delivery');
      expect(Math.min(sent.a, sent.b)).toBe(0);
      const holder = sent.a > 0 ? a : b;
      const other = holder === a ? b : a;
      await holder.stop();
      await append('QueueStateChanged', { from: 'paused', to: 'running' });
      // Counted once the receiver's 2xx is in: by the other replica, from the checkpoint the first one left.
      await until(() => sent.a > 0 && sent.b > 0, 'the takeover');
      expect(sent.a).toBeGreaterThan(0);
      expect(sent.b).toBeGreaterThan(0);
      const types = receiver.received.map((r) => JSON.parse(r.body).status as string);
      expect(new Set(types)).toEqual(new Set(['paused', 'running']));
      expect(other).toBeDefined();
    } finally {
      await Promise.all(running.map((d) => d.stop()));
      await receiver.stop();
      await events.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
