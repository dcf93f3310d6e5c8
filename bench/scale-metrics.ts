import { RedisMetricsStore } from '@railyard/readmodels';
import type { RecordedEvent } from '@railyard/eventstore';
import type Redis from 'ioredis';
import { redisCpuMs } from './scale-projector';
import { redisCurve } from './support/redis-curve';
import { workload } from './support/workload';

/**
 * The Redis metrics projection folded from position 0 over the rebuild workload's first N events (20
 * queues), in batches of 500 as the projector applies them (issue 29: a first catch-up of the
 * distributed projector grew superlinearly with history because of this model). Reports the CPU of
 * this process (folding, JSON, ioredis), Redis's own CPU (the whole server's), and what the stored
 * model holds at the end: bytes of the queue documents and failed PRs remembered per queue.
 */

const BATCH = 500;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

/** The workload as the log would hand it out: positions in append order, recorded at each event's own time. */
function* recorded(events: number): Generator<RecordedEvent> {
  const revisions = new Map<string, number>();
  let position = 0n;
  for (const a of workload({ events })) {
    for (const e of a.events) {
      const revision = (revisions.get(a.streamId) ?? -1) + 1;
      revisions.set(a.streamId, revision);
      position += 1n;
      yield {
        streamId: a.streamId,
        revision,
        position,
        eventId: e.eventId,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        recordedAt: e.metadata.at,
      };
    }
  }
}

/** Bytes and failed-PR entries of every queue's stored model, whichever way the store keeps them. */
const storedSize = async (redis: Redis, namespace: string): Promise<{ kb: number; failed: number; queues: number }> => {
  let bytes = 0;
  let failed = 0;
  let queues = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `ry:{${namespace}}:m:q:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      bytes += Number((await redis.memory('USAGE', key)) ?? 0);
      const type = await redis.type(key);
      if (type === 'string') {
        queues += 1;
        const doc = JSON.parse((await redis.get(key)) ?? '{}') as { failed?: object };
        failed += Object.keys(doc.failed ?? {}).length;
      } else if (type === 'hash') failed += await redis.hlen(key);
    }
  } while (cursor !== '0');
  return { kb: round(bytes / 1024, 0), failed, queues };
};

export const metricsFoldCurve = (sizes: number[], progress: (line: string) => void): Promise<Record<string, number>[]> =>
  redisCurve(
    sizes,
    'scalemetrics',
    (redis, namespace) => new RedisMetricsStore({ redis, namespace }),
    async (events, store, redis, namespace) => {
      let cpu = 0;
      let batch: RecordedEvent[] = [];
      const redisBefore = await redisCpuMs(redis);
      const started = process.hrtime.bigint();
      const apply = async (): Promise<void> => {
        const before = process.cpuUsage();
        await store.apply(batch);
        const d = process.cpuUsage(before);
        cpu += d.user + d.system;
        batch = [];
      };
      for (const e of recorded(events)) {
        batch.push(e);
        if (batch.length >= BATCH) await apply();
      }
      if (batch.length > 0) await apply();
      const wallS = Number(process.hrtime.bigint() - started) / 1e9;
      const redisMs = (await redisCpuMs(redis)) - redisBefore;
      const size = await storedSize(redis, namespace);
      return {
        events,
        foldCpuS: round(cpu / 1e6),
        redisCpuS: round(redisMs / 1000),
        wallS: round(wallS, 1),
        storedKb: size.kb,
        failedPerQueue: round(size.failed / Math.max(1, size.queues), 0),
      };
    },
    progress,
  );
