import os from 'node:os';
import path from 'node:path';
import { PostgresEventStore, SqliteEventStore, WrongExpectedRevisionError, type EventStore, type NewEvent } from '@railyard/eventstore';
import { createTestDatabase, makeTempDir, removeTempDir } from '@railyard/testkit';
import { positiveIntFromEnv, postgresUrlFromEnv } from './support/settings';

/**
 * `npm run bench -- eventstore [sqlite] [postgres]`: appends per second and their latency, straight
 * on the event store (no HTTP), SQLite with FULL sync against PostgreSQL (its store-wide append lock
 * included). Each case runs BENCH_SECONDS (default 5) after a one-second warm-up:
 * - one-stream: one appender, each append awaited before the next (the latency of one commit);
 * - one-stream/4-writers: four store objects (for PostgreSQL four connections, as four processes
 *   would be) appending to the same stream, catching up and retrying on a conflict;
 * - many-streams/32: 32 appenders on their own streams through one store object (group commit);
 * - many-streams/4x8: four store objects with 8 appenders each, all on their own streams;
 * - …/4-subscribers: the case with four subscriptions on the appending store object following the
 *   log as it grows, as the embedded server's projections do; `cpuMsPerAppend` then includes their
 *   reads (each counts what it is given and nothing more).
 */

const progress = (line: string): void => {
  process.stderr.write(`[bench eventstore] ${line}\n`);
};

let counter = 0;
const event = (): NewEvent => {
  counter += 1;
  return {
    eventId: `${process.pid}-${counter}-${Math.random().toString(36).slice(2)}`,
    type: 'PrSubmitted',
    data: {
      pr: { number: counter, headSha: 'a'.repeat(40), title: 'A pull request of typical size' },
      priority: 100,
      at: new Date().toISOString(),
    },
    metadata: { schemaVersion: 1, actor: 'bench', correlationId: `c-${counter}`, at: new Date().toISOString() },
  };
};

interface Load {
  stores: EventStore[];
  /** Appenders per store. */
  perStore: number;
  /** Stream of appender `i` of store `s`. */
  stream: (s: number, i: number) => string;
}

/** Subscriptions following the first store's log from its start; `delivered` counts the events they were given. */
const follow = (store: EventStore, count: number) => {
  let delivered = 0;
  const subscriptions = Array.from({ length: count }, () =>
    store.subscribe({
      fromPosition: null,
      onEvents: async (events) => {
        delivered += events.length;
      },
    }),
  );
  return { delivered: () => delivered, close: () => Promise.all(subscriptions.map((s) => s.close())) };
};

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Runs every appender until the deadline; only appends that finished after the warm-up count. */
async function drive(load: Load, seconds: number): Promise<{ appends: number; conflicts: number; latenciesMs: number[] }> {
  const warmEnd = performance.now() + 1_000;
  const end = warmEnd + seconds * 1_000;
  let appends = 0;
  let conflicts = 0;
  const latenciesMs: number[] = [];
  const revisions = new Map<string, number | 'no_stream'>();
  const appender = async (store: EventStore, stream: string): Promise<void> => {
    while (performance.now() < end) {
      const started = performance.now();
      try {
        const result = await store.append(stream, [event()], revisions.get(stream) ?? 'no_stream');
        revisions.set(stream, result.nextRevision);
        if (started >= warmEnd) {
          appends += 1;
          latenciesMs.push(performance.now() - started);
        }
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        revisions.set(stream, err.actual);
        if (started >= warmEnd) conflicts += 1;
      }
    }
  };
  await Promise.all(load.stores.flatMap((store, s) => Array.from({ length: load.perStore }, (_, i) => appender(store, load.stream(s, i)))));
  return { appends, conflicts, latenciesMs: latenciesMs.sort((a, b) => a - b) };
}

interface Backend {
  name: string;
  /** A store object on case `n`'s own log (a file, or a schema); every call is another object. */
  open(n: number): Promise<EventStore>;
  cleanup(): Promise<void>;
}

/** SQLite with FULL sync; `handOver` false is the simple design D48's hand-over is measured against (D333). */
const sqliteBackend = async (handOver = true): Promise<Backend> => {
  const dir = await makeTempDir('railyard-bench-eventstore-');
  return {
    name: handOver ? 'sqlite-full' : 'sqlite-full-no-hand-over',
    open: async (n) => new SqliteEventStore({ file: path.join(dir, `events-${n}.sqlite`), synchronous: 'full', handOver }),
    cleanup: () => removeTempDir(dir),
  };
};

const postgresBackend = async (): Promise<Backend> => {
  const db = await createTestDatabase(postgresUrlFromEnv(), 'bench_eventstore');
  return {
    name: 'postgres',
    open: (n) => PostgresEventStore.open({ url: db.url, schema: `case_${n}` }),
    cleanup: () => db.drop(),
  };
};

const CASES = [
  { name: 'one-stream', stores: 1, perStore: 1, stream: () => 'one' },
  { name: 'one-stream/4-writers', stores: 4, perStore: 1, stream: () => 'one' },
  { name: 'many-streams/32', stores: 1, perStore: 32, stream: (_s: number, i: number) => `s-${i}` },
  { name: 'many-streams/4x8', stores: 4, perStore: 8, stream: (s: number, i: number) => `s-${s}-${i}` },
  { name: 'one-stream/4-subscribers', stores: 1, perStore: 1, stream: () => 'one', subscribers: 4 },
  { name: 'many-streams/32/4-subscribers', stores: 1, perStore: 32, stream: (_s: number, i: number) => `s-${i}`, subscribers: 4 },
];

export async function* run(args: string[] = []): AsyncIterable<object> {
  const seconds = positiveIntFromEnv('BENCH_SECONDS', 5);
  const allMakers = [
    { label: 'sqlite-full', make: () => sqliteBackend() },
    { label: 'sqlite-full-no-hand-over', make: () => sqliteBackend(false) },
    { label: 'postgres', make: postgresBackend },
  ];
  // Arguments name backends (`sqlite`, `postgres`) or pick cases by substring (`subscribers`).
  const backendArgs = args.filter((a) => allMakers.some((b) => b.label.includes(a)));
  const caseArgs = args.filter((a) => !backendArgs.includes(a));
  const makers = allMakers.filter((b) => backendArgs.length === 0 || backendArgs.some((a) => b.label.includes(a)));
  const cases = CASES.filter((c) => caseArgs.length === 0 || caseArgs.some((a) => c.name.includes(a)));
  if (cases.length === 0)
    throw new Error(`no eventstore case matches ${caseArgs.join(' ')}; the cases are: ${CASES.map((c) => c.name).join(', ')}`);
  const backends: Backend[] = [];
  try {
    for (const { make } of makers) backends.push(await make());
    // Case by case, each store in turn: load from other work on the machine comes and goes, and
    // both sides of a comparison should meet the same.
    for (const c of cases) {
      const n = CASES.indexOf(c);
      for (const backend of backends) {
        progress(`${backend.name} ${c.name}`);
        const stores: EventStore[] = [];
        for (let i = 0; i < c.stores; i++) stores.push(await backend.open(n));
        const followers = c.subscribers ? follow(stores[0] as EventStore, c.subscribers) : null;
        const cpuBefore = process.cpuUsage();
        const { appends, conflicts, latenciesMs } = await drive({ stores, perStore: c.perStore, stream: c.stream }, seconds);
        const cpu = process.cpuUsage(cpuBefore);
        const delivered = followers?.delivered();
        await followers?.close();
        await Promise.all(stores.map((s) => s.close()));
        yield {
          name: `eventstore/${backend.name}/${c.name}`,
          appendsPerSec: Math.round(appends / seconds),
          p50Ms: round(percentile(latenciesMs, 0.5)),
          p99Ms: round(percentile(latenciesMs, 0.99)),
          conflictsPerSec: Math.round(conflicts / seconds),
          // The benchmark's own process (the stores' client side); PostgreSQL's server CPU is not in it.
          cpuMsPerAppend: appends > 0 ? round((cpu.user + cpu.system) / 1_000 / appends, 3) : 0,
          // Warm-up included: that they kept up, not a rate.
          ...(delivered !== undefined ? { eventsDeliveredPerSubscriber: Math.round(delivered / (c.subscribers ?? 1)) } : {}),
          seconds,
          loadAvg1m: round(os.loadavg()[0] ?? 0),
        };
      }
    }
  } finally {
    for (const backend of backends) await backend.cleanup();
  }
}
