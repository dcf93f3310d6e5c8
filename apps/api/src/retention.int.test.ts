import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import Redis from 'ioredis';
import { CI_LOG_SPACE, EXPIRED_LOG_NOTE, sweepRetention } from '@railyard/ci';
import { FsBlobStore, MemoryEventStore, SqliteEventStore, type EventStore } from '@railyard/eventstore';
import { statusStreamOf } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { redisKeys } from '@railyard/readmodels';
import { startRetention, type RetentionHandle } from './retention';

const REDIS_URL = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REPO = { host: 'git.local', owner: 'acme', name: 'widgets' };
const DAY = 86_400_000;
const logger = createLogger('test', 'error');
const status = (n: number) => ({
  eventId: randomUUID(),
  type: 'CommitStatusReported',
  data: { repo: REPO, sha: 'a'.repeat(40), context: `c${n}`, state: 'success' },
  metadata: { schemaVersion: 1, actor: 'ci', correlationId: randomUUID(), at: new Date().toISOString() },
});
const queueEvent = () => ({ ...status(0), type: 'QueueCreated' });

let dir: string;
let handles: RetentionHandle[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'retention-'));
});
afterEach(async () => {
  await Promise.all(handles.map((h) => h.close()));
  handles = [];
  rmSync(dir, { recursive: true, force: true });
});

/** A store holding one commit's statuses and, after them, a queue event. */
const seeded = async (): Promise<SqliteEventStore> => {
  const events = new SqliteEventStore({ file: join(dir, 'events.sqlite') });
  await events.append(statusStreamOf(REPO, 'a'.repeat(40)), [status(1), status(2)], 'any');
  await events.append('queue-q', [queueEvent()], 'any');
  return events;
};

describe('the retention sweep', () => {
  it('when two API replicas time the sweep, then only the holder of the lease sweeps, and the other takes over once it stops', async () => {
    const events = await seeded();
    const blobs = new FsBlobStore({ dir: join(dir, 'blobs') });
    const namespace = `test-${randomUUID().slice(0, 8)}`;
    const replica = () =>
      startRetention({
        settings: { days: 30, sweepMinutes: 60 },
        eventStore: events,
        blobs,
        logger,
        clock: () => new Date(Date.now() + 31 * DAY),
        lease: { redisUrl: REDIS_URL, namespace, ttlMs: 60_000 },
      });
    const [a, b] = [replica(), replica()] as [RetentionHandle, RetentionHandle];
    handles.push(a, b);

    const first = await a.sweeper.runOnce();
    expect(first?.statuses).toMatchObject({ streams: 1, events: 2 });
    expect(await b.sweeper.runOnce()).toBeNull();
    await a.close();
    expect(await b.sweeper.runOnce()).toMatchObject({ statuses: { streams: 0 } });

    const redis = new Redis(REDIS_URL);
    await redis.del(redisKeys(namespace).lease('retention'));
    await redis.quit();
    await events.close();
  });

  it('when the standalone engines’ snapshot names an old status event, then its stream stays, and the older ones go', async () => {
    const events = new SqliteEventStore({ file: join(dir, 'events.sqlite') });
    await events.append(statusStreamOf(REPO, 'b'.repeat(40)), [status(1)], 'any');
    const named = await events.append(statusStreamOf(REPO, 'a'.repeat(40)), [status(2)], 'any');
    await events.append('queue-q', [queueEvent()], 'any');
    const namespace = `test-${randomUUID().slice(0, 8)}`;
    const redis = new Redis(REDIS_URL);
    await redis.set(redisKeys(namespace).engineHead, serialize({ schema: 1, position: named.position, eventId: 'x', queues: [] }));
    const handle = startRetention({
      settings: { days: 30, sweepMinutes: 60 },
      eventStore: events,
      blobs: new FsBlobStore({ dir: join(dir, 'blobs') }),
      logger,
      clock: () => new Date(Date.now() + 31 * DAY),
      lease: { redisUrl: REDIS_URL, namespace, ttlMs: 60_000 },
    });
    handles.push(handle);

    expect(await handle.sweeper.runOnce()).toMatchObject({ statuses: { streams: 1 } });
    expect(await events.readStream(statusStreamOf(REPO, 'a'.repeat(40)))).toHaveLength(1);
    expect(await events.readStream(statusStreamOf(REPO, 'b'.repeat(40)))).toEqual([]);

    await redis.del(redisKeys(namespace).engineHead, redisKeys(namespace).lease('retention'));
    await redis.quit();
    await events.close();
  });

  it('when retention is 0 days, then nothing is swept', async () => {
    const events = await seeded();

    expect(await sweepRetention({ events, logs: null, days: 0, clock: () => new Date(Date.now() + 3650 * DAY) })).toBeNull();
    expect(await events.readStream(statusStreamOf(REPO, 'a'.repeat(40)))).toHaveLength(2);
    await events.close();
  });

  it('when the event store cannot drop streams, then statuses are kept and logs still expire', async () => {
    const memory = new MemoryEventStore();
    // What KurrentDB's adapter offers: the event store port and nothing more.
    const kurrentLike: EventStore = {
      append: (...a) => memory.append(...a),
      readStream: (...a) => memory.readStream(...a),
      readAll: (...a) => memory.readAll(...a),
      headPosition: () => memory.headPosition(),
      subscribe: (o) => memory.subscribe(o),
      close: () => memory.close(),
    };
    await kurrentLike.append(statusStreamOf(REPO, 'a'.repeat(40)), [status(1)], 'any');
    const blobs = new FsBlobStore({ dir: join(dir, 'blobs') });
    await blobs.putNamed(`${CI_LOG_SPACE}/run-1/unit.log`, Buffer.from('old log'));

    const pass = await sweepRetention({ events: kurrentLike, logs: blobs, days: 30, clock: () => new Date(Date.now() + 31 * DAY) });

    expect(pass).toMatchObject({ statuses: null, logs: { blobs: 1 } });
    expect(await blobs.getNamed(`${CI_LOG_SPACE}/run-1/unit.log`)).toEqual(EXPIRED_LOG_NOTE);
    expect(await kurrentLike.readStream(statusStreamOf(REPO, 'a'.repeat(40)))).toHaveLength(1);
  });
});
