import path from 'node:path';
import { PostgresEventStore, SqliteEventStore, type EventStore } from '@railyard/eventstore';
import { rebuildProjections } from '@railyard/readmodels';
import { MemoryReadModelStore, RedisReadModelStore, type ReadModelStore } from '@railyard/readmodels';
import Redis from 'ioredis';
import { createTestDatabase, makeTempDir, removeTempDir } from '@railyard/testkit';
import { dropNamespace } from './support/redis-namespace';
import { positiveIntFromEnv, postgresUrlFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';
import { workload } from './support/workload';

/**
 * `npm run bench -- rebuild [memory|redis] [sqlite|postgres]`: writes a synthetic log of BENCH_EVENTS
 * events (default 1,000,000) into a SQLite event store and into PostgreSQL (a database of its own on
 * BENCH_POSTGRES_URL, dropped afterwards), then times rebuildProjections from position 0 of each
 * into the in-memory read models and into Redis (a namespace of its own, deleted afterwards).
 * Results from SQLite keep their old names (rebuild/memory, rebuild/redis); PostgreSQL's are
 * rebuild/postgres/memory and rebuild/postgres/redis.
 */

const TARGET_EVENTS_PER_SEC = 50_000;

const progress = (line: string): void => {
  process.stderr.write(`[bench rebuild] ${line}\n`);
};

const rate = (events: number, seconds: number): number => Math.round(events / seconds);
const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** CPU seconds the Redis server has used so far, from its own INFO (it may serve others too: an upper bound for ours). */
const redisCpuSeconds = async (redisUrl: string): Promise<number> => {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const info = await redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return field('used_cpu_user') + field('used_cpu_sys');
  } finally {
    redis.disconnect();
  }
};

const timeRebuild = async (
  name: string,
  eventStore: EventStore,
  readModels: ReadModelStore,
  head: bigint | null,
  batchSize?: number,
): Promise<Record<string, unknown>> => {
  progress(`${name}: rebuilding`);
  const cpuBefore = process.cpuUsage();
  const { events, seconds } = await rebuildProjections({ eventStore, readModels, ...(batchSize ? { batchSize } : {}) });
  const cpu = process.cpuUsage(cpuBefore);
  const eventsPerSec = rate(events, seconds);
  return {
    name,
    events,
    seconds: round3(seconds),
    eventsPerSec,
    // The rebuild's own process: reading the events, folding, encoding for Redis.
    cpuSeconds: round3((cpu.user + cpu.system) / 1e6),
    // A rebuild that stopped short would look fast; the checkpoint proves it went to the end.
    reachedHead: (await readModels.checkpoint()) === head,
    batchSize: batchSize ?? 'default',
    target: `eventsPerSec >= ${TARGET_EVENTS_PER_SEC}`,
    met: eventsPerSec >= TARGET_EVENTS_PER_SEC,
  };
};

interface Source {
  name: 'sqlite' | 'postgres';
  /** Prefix of the result names. */
  prefix: string;
  open(): Promise<{ store: EventStore; cleanup: () => Promise<void>; alternates?: { suffix: string; store: EventStore }[] }>;
}

const SOURCES: Source[] = [
  {
    name: 'sqlite',
    prefix: 'rebuild',
    open: async () => {
      const work = await makeTempDir('railyard-bench-rebuild-');
      // NORMAL: the seeding is set-up, not what is measured, and a power cut would only lose a temp file.
      const store = new SqliteEventStore({ file: path.join(work, 'events.sqlite'), synchronous: 'normal' });
      return { store, cleanup: () => removeTempDir(work) };
    },
  },
  {
    name: 'postgres',
    prefix: 'rebuild/postgres',
    open: async () => {
      const db = await createTestDatabase(postgresUrlFromEnv(), 'bench_rebuild');
      try {
        const store = await PostgresEventStore.open({ url: db.url });
        // The same log read without ReadAhead: the simple design D335 judges it against.
        const plain = await PostgresEventStore.open({ url: db.url, readAhead: false });
        const cleanup = async () => {
          await plain.close();
          await db.drop();
        };
        return { store, cleanup, alternates: [{ suffix: 'no-read-ahead', store: plain }] };
      } catch (err) {
        await db.drop();
        throw err;
      }
    },
  },
];

/** Appends made without waiting are group-committed together, in order, so each chunk is one transaction. */
const seed = async (store: EventStore, count: number): Promise<number> => {
  const started = process.hrtime.bigint();
  let chunk: Promise<unknown>[] = [];
  for (const append of workload({ events: count })) {
    chunk.push(store.append(append.streamId, append.events, append.expected));
    if (chunk.length >= 5000) {
      await Promise.all(chunk);
      chunk = [];
    }
  }
  await Promise.all(chunk);
  return Number(process.hrtime.bigint() - started) / 1e9;
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const count = positiveIntFromEnv('BENCH_EVENTS', 1_000_000);
  // Unset: rebuildProjections' own default, i.e. what `railyard projections rebuild` does.
  const batchSize = process.env.BENCH_REBUILD_BATCH ? positiveIntFromEnv('BENCH_REBUILD_BATCH', 1) : undefined;
  const redisUrl = redisUrlFromEnv();
  const targets = ['memory', 'redis'].filter((t) => !args.some((a) => a === 'memory' || a === 'redis') || args.includes(t));
  const sources = SOURCES.filter((src) => !args.some((a) => a === 'sqlite' || a === 'postgres') || args.includes(src.name));
  for (const source of sources) {
    const { store, cleanup, alternates = [] } = await source.open();
    try {
      progress(`writing ${count} events into ${source.name}`);
      const seconds = await seed(store, count);
      yield { name: `${source.prefix}/seed-${source.name}`, events: count, seconds: round3(seconds), eventsPerSec: rate(count, seconds) };
      const head = await store.headPosition();

      if (targets.includes('memory')) {
        for (const reader of [{ suffix: '', store }, ...alternates]) {
          const memory = new MemoryReadModelStore();
          try {
            const name = `${source.prefix}/memory${reader.suffix ? `/${reader.suffix}` : ''}`;
            yield await timeRebuild(name, reader.store, memory, head, batchSize);
          } finally {
            await memory.close();
          }
        }
      }
      if (targets.includes('redis')) {
        const namespace = uniqueNamespace('rebuild');
        const redis = new RedisReadModelStore({ redis: redisUrl, namespace });
        try {
          const redisBefore = await redisCpuSeconds(redisUrl);
          const result = await timeRebuild(`${source.prefix}/redis`, store, redis, head, batchSize);
          yield { ...result, redisCpuSeconds: round3((await redisCpuSeconds(redisUrl)) - redisBefore) };
        } finally {
          await redis.close();
          await dropNamespace(redisUrl, namespace);
        }
      }
    } finally {
      await store.close();
      await cleanup();
    }
  }
}
