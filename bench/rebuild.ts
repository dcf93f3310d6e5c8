import path from 'node:path';
import { SqliteEventStore } from '@railyard/eventstore';
import { rebuildProjections } from '@railyard/projector';
import { MemoryReadModelStore, RedisReadModelStore, type ReadModelStore } from '@railyard/readmodels';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { dropNamespace } from './support/redis-namespace';
import { positiveIntFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';
import { workload } from './support/workload';

/**
 * `npm run bench -- rebuild [memory|redis]`: writes a synthetic log of BENCH_EVENTS events (default
 * 1,000,000) into a SQLite event store, then times rebuildProjections from position 0 into the
 * in-memory read models and into Redis (a namespace of its own, deleted afterwards).
 */

const TARGET_EVENTS_PER_SEC = 50_000;

const progress = (line: string): void => {
  process.stderr.write(`[bench rebuild] ${line}\n`);
};

const rate = (events: number, seconds: number): number => Math.round(events / seconds);
const round3 = (n: number): number => Math.round(n * 1000) / 1000;

const timeRebuild = async (name: string, eventStore: SqliteEventStore, readModels: ReadModelStore, head: bigint | null): Promise<object> => {
  progress(`${name}: rebuilding`);
  const { events, seconds } = await rebuildProjections({ eventStore, readModels });
  const eventsPerSec = rate(events, seconds);
  return {
    name,
    events,
    seconds: round3(seconds),
    eventsPerSec,
    // A rebuild that stopped short would look fast; the checkpoint proves it went to the end.
    reachedHead: (await readModels.checkpoint()) === head,
    target: `eventsPerSec >= ${TARGET_EVENTS_PER_SEC}`,
    met: eventsPerSec >= TARGET_EVENTS_PER_SEC,
  };
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const count = positiveIntFromEnv('BENCH_EVENTS', 1_000_000);
  const redisUrl = redisUrlFromEnv();
  const wanted = (target: string) => args.length === 0 || args.includes(target);
  const work = await makeTempDir('railyard-bench-rebuild-');
  // NORMAL: the seeding is set-up, not what is measured, and a power cut would only lose a temp file.
  const eventStore = new SqliteEventStore({ file: path.join(work, 'events.sqlite'), synchronous: 'normal' });
  try {
    progress(`writing ${count} events`);
    const started = process.hrtime.bigint();
    for (const append of workload({ events: count })) await eventStore.append(append.streamId, append.events, append.expected);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    yield { name: 'rebuild/seed-sqlite', events: count, seconds: round3(seconds), eventsPerSec: rate(count, seconds) };
    const head = await eventStore.headPosition();

    if (wanted('memory')) {
      const memory = new MemoryReadModelStore();
      try {
        yield await timeRebuild('rebuild/memory', eventStore, memory, head);
      } finally {
        await memory.close();
      }
    }
    if (wanted('redis')) {
      const namespace = uniqueNamespace('rebuild');
      const redis = new RedisReadModelStore({ redis: redisUrl, namespace });
      try {
        yield await timeRebuild('rebuild/redis', eventStore, redis, head);
      } finally {
        await redis.close();
        await dropNamespace(redisUrl, namespace);
      }
    }
  } finally {
    await eventStore.close();
    await removeTempDir(work);
  }
}
