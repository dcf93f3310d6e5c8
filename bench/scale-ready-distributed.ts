import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PostgresEventStore } from '@railyard/eventstore';
import { openRedisProjections, redisKeys } from '@railyard/readmodels';
import { createTestDatabase, makeTempDir, removeTempDir } from '@railyard/testkit';
import Redis from 'ioredis';
import { procKb } from './support/embedded-server';
import { dropNamespace } from './support/redis-namespace';
import { postgresUrlFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';
import { appendWorkload, prefixed, procCpuSeconds, ready } from './scale-ready';

/**
 * `npm run bench -- scale ready-distributed [sizes...]` (issue 29): the distributed shape over a
 * PostgreSQL log of N events (the rebuild workload, 20 queues; a database of its own) with read
 * models, checkpoints and engine snapshots in Redis (a namespace of its own). The projector and the
 * engine first catch up once and stop cleanly, leaving checkpoints, read models and the engine's
 * snapshot (D292); then each process is started again, one after the other so each has the CPU to
 * itself: the projector until the read models' checkpoint is the log's head, the API (with that
 * projector running) until the first 200 on /readyz, the engine until it logs "engine caught up".
 * Each gives the CPU seconds of its process and its resident set then, and its peak.
 */

const ROOT = path.resolve(__dirname, '..');
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Proc {
  proc: ChildProcess;
  pid: number;
  /** True once a stdout line has matched the pattern. */
  saw(pattern: RegExp): boolean;
  port(): number | null;
  stop(): Promise<void>;
}

/** node --import tsx, not the tsx CLI: one OS process, whose /proc entry is the app's. */
const spawnApp = (script: string, env: NodeJS.ProcessEnv): Proc => {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, JEST_WORKER_ID: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Only the lines looked for are kept: a long catch-up logs a lot.
  const kept: string[] = [];
  let partial = '';
  proc.stdout?.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (/"(port|message":"(engine caught up|engine started|projector started))"/.test(l)) kept.push(l);
  });
  return {
    proc,
    pid: proc.pid ?? 0,
    saw: (pattern) => kept.some((l) => pattern.test(l)),
    port: () => {
      for (const l of kept) {
        const m = /"port":(\d+)/.exec(l);
        if (m) return Number(m[1]);
      }
      return null;
    },
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
};

const until = async (what: string, proc: Proc, test: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (proc.proc.exitCode !== null) throw new Error(`${what}: the process exited with ${proc.proc.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await sleep(20);
  }
};

/** CPU seconds, resident set now and peak, of a process that has just become ready. */
const atReady = (proc: Proc): Record<string, number> => ({
  cpuS: round(procCpuSeconds(proc.pid)),
  rssMb: round(procKb(proc.pid, 'VmRSS') / 1024, 0),
  peakMb: round(procKb(proc.pid, 'VmHWM') / 1024, 0),
});

const seedPostgres = async (url: string, events: number, progress: (line: string) => void): Promise<bigint> => {
  const store = await PostgresEventStore.open({ url });
  try {
    await appendWorkload(store, events, progress);
    return (await store.headPosition()) ?? 0n;
  } finally {
    await store.close();
  }
};

const oneSize = async (events: number, progress: (line: string) => void, timeoutMs: number): Promise<Record<string, number>> => {
  const redisUrl = redisUrlFromEnv();
  const namespace = uniqueNamespace('ready-dist');
  const db = await createTestDatabase(postgresUrlFromEnv(), 'bench_ready_dist');
  const dir = await makeTempDir('railyard-bench-ready-dist-');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const running: Proc[] = [];
  const token = randomBytes(24).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    PORT: '0',
    RAILYARD_DATA_DIR: dir,
    RAILYARD_GIT_ROOT: path.join(dir, 'git'),
    RAILYARD_API_TOKENS: `bench:${token}:admin`,
    RAILYARD_PAGE_TOKEN_SECRET: randomBytes(24).toString('base64url'),
    RAILYARD_POSTGRES_URL: db.url,
    RAILYARD_REDIS_URL: redisUrl,
    RAILYARD_REDIS_NAMESPACE: namespace,
    RAILYARD_LOG_LEVEL: 'info',
  };
  const start = (script: string): Proc => {
    const p = spawnApp(script, env);
    running.push(p);
    return p;
  };
  const stop = async (p: Proc): Promise<void> => {
    await p.stop();
    running.splice(running.indexOf(p), 1);
  };
  try {
    progress(`ready-distributed: seeding ${events} events into ${db.name}`);
    const seedStarted = Date.now();
    const head = await seedPostgres(db.url, events, progress);
    const seedS = round((Date.now() - seedStarted) / 1000, 1);
    progress(`ready-distributed: seeded in ${seedS} s, head ${head}`);
    // Every projection the projector keeps (queue views, metrics, test health) has its own checkpoint.
    const { all } = openRedisProjections(redis, namespace, { maxRunsPerTest: 1, retentionDays: 1 });
    const projected = async (): Promise<boolean> => {
      for (const p of Object.values(all)) if (((await p.checkpoint()) ?? -1n) < head) return false;
      return true;
    };
    const caughtUp = /"message":"engine caught up"/;

    // The first catch-up, not timed: it leaves the checkpoints, read models and engine snapshot.
    const firstStarted = Date.now();
    let projector = start('apps/projector/src/main.ts');
    await until('first projection', projector, projected, timeoutMs);
    let engine = start('apps/engine/src/main.ts');
    await until('first engine catch-up', engine, () => engine.saw(caughtUp), timeoutMs);
    const first = { projectorCpuS: round(procCpuSeconds(projector.pid)), engineCpuS: round(procCpuSeconds(engine.pid)) };
    await stop(engine);
    await stop(projector);
    progress(`ready-distributed: first catch-up in ${round((Date.now() - firstStarted) / 1000, 1)} s ${JSON.stringify(first)}`);

    // Resumed starts, one process at a time.
    projector = start('apps/projector/src/main.ts');
    await until('projector', projector, async () => projector.saw(/"projector started"/) && (await projected()), timeoutMs);
    const projectorRow = atReady(projector);
    const api = start('apps/api/src/main.ts');
    await until(
      'api',
      api,
      async () => {
        const port = api.port();
        return port !== null && (await ready(`http://127.0.0.1:${port}`));
      },
      timeoutMs,
    );
    const apiRow = atReady(api);
    engine = start('apps/engine/src/main.ts');
    await until('engine', engine, () => engine.saw(caughtUp), timeoutMs);
    const engineRow = atReady(engine);
    // What the resumed engine read instead of the log (MEMORY USAGE of its snapshot's keys).
    const keys = redisKeys(namespace);
    let snapshotBytes = 0;
    for (const key of [keys.engineHead, keys.engineStreams]) snapshotBytes += Number(await redis.call('MEMORY', 'USAGE', key)) || 0;
    const row = {
      events,
      seedS,
      firstProjectorCpuS: first.projectorCpuS,
      firstEngineCpuS: first.engineCpuS,
      ...prefixed('projector', projectorRow),
      ...prefixed('api', apiRow),
      ...prefixed('engine', engineRow),
      engineSnapshotMb: round(snapshotBytes / 2 ** 20, 1),
      redisUsedMb: round(Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? NaN) / 2 ** 20, 0),
    };
    progress(JSON.stringify(row));
    return row;
  } finally {
    for (const p of [...running].reverse()) await p.stop();
    redis.disconnect();
    await dropNamespace(redisUrl, namespace);
    await db.drop();
    await removeTempDir(dir);
  }
};

export const distributedReadyCurve = async (sizes: number[], progress: (line: string) => void): Promise<Record<string, number>[]> => {
  const timeoutMs = Number(process.env.BENCH_SCALE_TIMEOUT_MS ?? 30 * 60_000);
  const rows: Record<string, number>[] = [];
  for (const events of sizes) rows.push(await oneSize(events, progress, timeoutMs));
  return rows;
};
