import path from 'node:path';
import { queueIdOf, queueStreamOf } from '@railyard/domain';
import { SqliteEventStore, type EventStore } from '@railyard/eventstore';
import { makeTempDir, Receiver, removeTempDir } from '@railyard/testkit';
import {
  AddressPolicy,
  EndpointService,
  newSigningSecret,
  SqliteDeliveryStore,
  WebhookDeliverer,
  type DeliveryStore,
} from '@railyard/webhooks';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- webhooks`: events appended at BENCH_EVENTS_PER_SECOND (default 1,000) for
 * BENCH_SECONDS (default 5) into a SQLite log, each giving one message (queue.state_changed), sent
 * to 10 endpoints on 127.0.0.1, one of which answers after BENCH_SLOW_MS (default 200). Reports,
 * for the nine others, event → delivered p50/p99 and deliveries per second, and for the slow one how
 * far it got (it must not hold the others up); with the operation counts behind them: log reads,
 * checkpoint writes and HTTP requests per delivered message.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'bench' };
const STREAM = queueStreamOf(queueIdOf(REPO, 'main'));

const progress = (line: string): void => {
  process.stderr.write(`[bench webhooks] ${line}\n`);
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** `target` with calls of its method `name` counted by `bump`: the operation counts reported when the machine is too loaded to time. */
const countingCalls = <T extends object>(target: T, name: string, bump: () => void): T =>
  new Proxy(target, {
    get: (t, prop, receiver) => {
      const v = Reflect.get(t, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const method = v as (...a: unknown[]) => unknown;
      return prop === name
        ? (...args: unknown[]) => {
            bump();
            return method.apply(t, args);
          }
        : method.bind(t);
    },
  });

export const run = async (): Promise<object[]> => {
  const perSecond = positiveIntFromEnv('BENCH_EVENTS_PER_SECOND', 1_000);
  const seconds = positiveIntFromEnv('BENCH_SECONDS', 5);
  const slowMs = positiveIntFromEnv('BENCH_SLOW_MS', 200);
  const endpointsCount = 10;
  const dir = await makeTempDir('bench-webhooks-');
  const events = new SqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const store = new SqliteDeliveryStore(path.join(dir, 'webhooks.sqlite'));
  const counts = { reads: 0, checkpoints: 0 };
  const counted = {
    events: countingCalls<EventStore>(events, 'readAll', () => counts.reads++),
    store: countingCalls<DeliveryStore>(store, 'saveCheckpoint', () => counts.checkpoints++),
  };
  const receivers = await Promise.all(Array.from({ length: endpointsCount }, () => new Receiver().start()));
  (receivers[0] as Receiver).delayMs = slowMs;
  const service = new EndpointService(events);
  const appendedAt = new Map<string, number>();
  const latencies: number[] = [];
  const delivered = new Map<string, number>();
  let firstDeliveredAt = 0;
  let lastFastDeliveredAt = 0;
  const deliverer = new WebhookDeliverer({
    eventStore: counted.events,
    endpoints: service,
    store: counted.store,
    policy: new AddressPolicy(['127.0.0.1/32']),
    publicUrl: () => 'http://railyard.bench',
    pollMs: 20,
    onDelivered: (endpointId, m) => {
      const now = performance.now();
      firstDeliveredAt ||= now;
      delivered.set(endpointId, (delivered.get(endpointId) ?? 0) + 1);
      if (endpointId === 'ep0') return;
      lastFastDeliveredAt = now;
      const at = appendedAt.get(m.eventId);
      if (at !== undefined) latencies.push(now - at);
    },
  });
  try {
    await events.append(
      STREAM,
      [
        {
          eventId: 'created',
          type: 'QueueCreated',
          data: {
            queueId: queueIdOf(REPO, 'main'),
            repo: REPO,
            branch: 'main',
            settings: {},
            requiredStatuses: [],
            state: 'running',
            at: new Date().toISOString(),
          },
          metadata: { schemaVersion: 1, actor: 'bench', correlationId: 'c', at: new Date().toISOString() },
        },
      ],
      'any',
    );
    for (let i = 0; i < endpointsCount; i++)
      await service.execute(
        {
          type: 'create',
          endpointId: `ep${i}`,
          kind: 'webhook',
          settings: { url: (receivers[i] as Receiver).url, description: '', events: [], repos: [], targetBranches: [] },
          secret: newSigningSecret(),
          startAfter: await events.headPosition(),
        },
        { actor: 'bench', correlationId: 'c' },
      );
    deliverer.start();
    const total = perSecond * seconds;
    progress(`appending ${total} events at ${perSecond}/s into ${endpointsCount} endpoints (ep0 answers after ${slowMs} ms)`);
    const started = performance.now();
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const eventId = `e${n}`;
      appendedAt.set(eventId, performance.now());
      await events.append(
        STREAM,
        [
          {
            eventId,
            type: 'QueueStateChanged',
            data: { from: n % 2 ? 'paused' : 'running', to: n % 2 ? 'running' : 'paused', at: new Date().toISOString() },
            metadata: { schemaVersion: 1, actor: 'bench', correlationId: 'c', at: new Date().toISOString() },
          },
        ],
        'any',
      );
    }
    const appendSeconds = (performance.now() - started) / 1000;
    const fastTarget = total * (endpointsCount - 1);
    const deadline = performance.now() + 120_000;
    const fastDelivered = (): number => [...delivered].filter(([id]) => id !== 'ep0').reduce((s, [, n]) => s + n, 0);
    while (fastDelivered() < fastTarget && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const sorted = [...latencies].sort((a, b) => a - b);
    const fast = fastDelivered();
    const requests = receivers.reduce((s, r) => s + r.received.length, 0);
    const all = [...delivered.values()].reduce((s, n) => s + n, 0);
    return [
      {
        case: `${endpointsCount} endpoints, 1 slow (${slowMs} ms), ${perSecond} events/s for ${seconds} s`,
        eventsAppended: total,
        appendSeconds: Number(appendSeconds.toFixed(2)),
        fastEndpointsDelivered: `${fast}/${fastTarget}`,
        fastDeliveriesPerSecond: Math.round(fast / ((lastFastDeliveredAt - firstDeliveredAt) / 1000 || 1)),
        eventToDeliveredMs: { p50: Math.round(percentile(sorted, 50)), p99: Math.round(percentile(sorted, 99)) },
        slowEndpointDelivered: delivered.get('ep0') ?? 0,
        logReadsPerDelivery: Number((counts.reads / Math.max(all, 1)).toFixed(3)),
        checkpointWritesPerDelivery: Number((counts.checkpoints / Math.max(all, 1)).toFixed(3)),
        httpRequestsPerDelivery: Number((requests / Math.max(all, 1)).toFixed(3)),
      },
    ];
  } finally {
    await deliverer.stop();
    await Promise.all(receivers.map((r) => r.stop()));
    await store.close();
    await events.close();
    await removeTempDir(dir);
  }
};
