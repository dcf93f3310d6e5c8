import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { positiveIntFromEnv } from './settings';

/**
 * Knobs of `scale ready` for large logs (issue 29): seeding 10M events into SQLite takes most of an
 * hour and a start with snapshots off over them would need about 13 GB, so a run at that size can
 * keep its seeded logs for the next run and leave the snapshots-off start out. Both off by default.
 */
export interface ReadySettings {
  /** BENCH_SCALE_SEED_DIR: seeded logs are kept here as `sqlite-<events>.sqlite` and copied for each run. */
  seedDir?: string;
  /** BENCH_SCALE_REPLAY_MAX_EVENTS: sizes above this skip the start with snapshots off. */
  replayMaxEvents: number;
  /** BENCH_SCALE_TIMEOUT_MS: how long one start may take to be ready and caught up. */
  timeoutMs: number;
}

export const readySettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): ReadySettings => ({
  ...(env.BENCH_SCALE_SEED_DIR ? { seedDir: path.resolve(env.BENCH_SCALE_SEED_DIR) } : {}),
  replayMaxEvents: positiveIntFromEnv('BENCH_SCALE_REPLAY_MAX_EVENTS', Number.MAX_SAFE_INTEGER, env),
  timeoutMs: positiveIntFromEnv('BENCH_SCALE_TIMEOUT_MS', 30 * 60_000, env),
});

export const seededLogOf = (seedDir: string, events: number): string => path.join(seedDir, `sqlite-${events}.sqlite`);

// SQLite's companions of a database file, and the store's wake marker (D181).
const companions = (file: string): string[] => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`, `${file}-appended`];

/**
 * Puts a log of `events` events at `target`. With a seed directory, the log seeded there by an earlier
 * run is copied (a start appends to the log it is given, so the kept one is never opened); a missing
 * one is seeded first, under a `.partial` name renamed only once complete, so an interrupted seed is
 * never taken for a whole one. Says whether it seeded.
 */
export const provideLog = async (
  target: string,
  events: number,
  seedDir: string | undefined,
  seedInto: (file: string) => Promise<void>,
): Promise<boolean> => {
  if (seedDir === undefined) {
    await seedInto(target);
    return true;
  }
  const kept = seededLogOf(seedDir, events);
  let seeded = false;
  if (!existsSync(kept)) {
    const partial = `${kept}.partial`;
    for (const f of companions(partial)) rmSync(f, { force: true });
    await seedInto(partial);
    // The store checkpoints its write-ahead log on close; a leftover one would hold events the copy misses.
    if (existsSync(`${partial}-wal`)) throw new Error(`${partial}-wal is still there after the seed: the log was not closed cleanly`);
    renameSync(partial, kept);
    for (const f of companions(partial)) rmSync(f, { force: true });
    seeded = true;
  }
  copyFileSync(kept, target);
  return seeded;
};
