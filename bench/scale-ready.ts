import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { SqliteEventStore, type EventStore } from '@railyard/eventstore';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { procKb, startEmbeddedServer } from './support/embedded-server';
import { provideLog, readySettingsFromEnv } from './support/seed-cache';
import { workload } from './support/workload';

/**
 * `npm run bench -- scale ready [sizes...]` (issue 29, docs/decisions.md D292): the embedded server with
 * its engine on, over a SQLite log of N events (the rebuild workload, 20 queues), started three times:
 * with snapshots off (everything folded from the log), then with them on (`first`: a start that folds the
 * log, writing snapshots as it goes and at its clean stop), then resumed from those. Each timed start
 * gives the time and CPU to the first 200 on /readyz, the resident set then, and the engine's
 * catch-up after that: until it logs "engine caught up" (the log as it was at start handled and each
 * queue's first pass done), with the CPU spent meanwhile and the peak resident set.
 * BENCH_SCALE_SEED_DIR keeps the seeded logs for later runs and BENCH_SCALE_REPLAY_MAX_EVENTS leaves the
 * snapshots-off start out above a size (support/seed-cache.ts): what a 10M-event run needs.
 */

const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

/** The workload's appends, 5,000 in flight at a time (each chunk is group-committed together, in order). */
export const appendWorkload = async (store: EventStore, events: number, progress?: (line: string) => void): Promise<void> => {
  let chunk: Promise<unknown>[] = [];
  let appended = 0;
  for (const a of workload({ events })) {
    chunk.push(store.append(a.streamId, a.events, a.expected));
    appended += a.events.length;
    if (chunk.length >= 5000) {
      await Promise.all(chunk);
      chunk = [];
      if (appended % 500_000 < 10_000) progress?.(`seeded ${appended} of ${events}`);
    }
  }
  await Promise.all(chunk);
};

export const seed = async (file: string, events: number, progress?: (line: string) => void): Promise<void> => {
  const store = new SqliteEventStore({ file, synchronous: 'normal' });
  try {
    await appendWorkload(store, events, progress);
  } finally {
    await store.close();
  }
};

/** CPU seconds a process has used (utime + stime from /proc, in clock ticks of 1/100 s): honest under load. */
export const procCpuSeconds = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

export const ready = async (url: string): Promise<boolean> => {
  try {
    return (await fetch(`${url}/readyz`)).status === 200;
  } catch {
    return false;
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One start with the engine on, until it has caught up; then a clean stop (which writes the snapshots when on). */
const timeEngineStart = async (dir: string, snapshots: boolean, timeoutMs: number): Promise<Record<string, number>> => {
  const started = process.hrtime.bigint();
  const elapsedMs = (): number => Number(process.hrtime.bigint() - started) / 1e6;
  const server = await startEmbeddedServer(dir, 'bench-scale-token', {
    RAILYARD_ENGINE: 'on',
    RAILYARD_SNAPSHOT_EVERY_EVENTS: snapshots ? '100000' : '0',
  });
  let out = '';
  server.proc.stdout?.on('data', (d: Buffer) => {
    // Only the line looked for is kept: a long start logs a lot.
    for (const line of d.toString().split('\n')) if (line.includes('"engine caught up"')) out += line;
  });
  try {
    const pid = server.proc.pid ?? 0;
    while (!(await ready(server.url))) {
      if (elapsedMs() > timeoutMs) throw new Error('no 200 on /readyz in time');
      await sleep(20);
    }
    const readyMs = elapsedMs();
    const readyCpu = procCpuSeconds(pid);
    const rssMb = procKb(pid, 'VmRSS') / 1024;
    while (!out.includes('"engine caught up"')) {
      if (elapsedMs() > timeoutMs) throw new Error('the engine did not catch up in time');
      await sleep(20);
    }
    const caughtMs = elapsedMs();
    return {
      readyMs: round(readyMs, 0),
      readyCpuS: round(readyCpu),
      rssMb: round(rssMb, 0),
      catchUpMs: round(Math.max(0, caughtMs - readyMs), 0),
      catchUpCpuS: round(procCpuSeconds(pid) - readyCpu),
      peakMb: round(procKb(pid, 'VmHWM') / 1024, 0),
    };
  } finally {
    await server.stop();
  }
};

export const prefixed = (prefix: string, row: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [`${prefix}${k[0]?.toUpperCase()}${k.slice(1)}`, v]));

export const readyCurve = async (sizes: number[], progress: (line: string) => void): Promise<Record<string, number>[]> => {
  const rows: Record<string, number>[] = [];
  const { seedDir, replayMaxEvents, timeoutMs } = readySettingsFromEnv();
  for (const events of sizes) {
    const dir = await makeTempDir('railyard-bench-ready-');
    try {
      progress(`ready: a log of ${events} events${seedDir ? ` from ${seedDir}` : ''}`);
      const seedStarted = Date.now();
      const seeded = await provideLog(path.join(dir, 'events.sqlite'), events, seedDir, (file) => seed(file, events, progress));
      progress(`ready: ${seeded ? 'seeded' : 'copied'} in ${Date.now() - seedStarted} ms`);
      const replay = events <= replayMaxEvents ? await timeEngineStart(dir, false, timeoutMs) : {};
      progress(`ready: replay ${JSON.stringify(replay)}`);
      // Folds the log like the replay, writing snapshots (and paging cold documents out, D320) as it
      // goes; its clean stop writes the last ones.
      const first = await timeEngineStart(dir, true, timeoutMs);
      progress(`ready: first ${JSON.stringify(first)}`);
      const resumed = await timeEngineStart(dir, true, timeoutMs);
      // What a resumed start reads instead of the log: the engine's snapshot and the read models'.
      const mb = (file: string): number => round(statSync(path.join(dir, file)).size / 2 ** 20, 1);
      const files = { engineStateMb: mb('engine-state.sqlite'), readModelsMb: mb('read-models.sqlite'), logMb: mb('events.sqlite') };
      const row = { events, ...prefixed('replay', replay), ...prefixed('first', first), ...prefixed('resumed', resumed), ...files };
      progress(JSON.stringify(row));
      rows.push(row);
    } finally {
      await removeTempDir(dir);
    }
  }
  return rows;
};
