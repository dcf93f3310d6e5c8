import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import path from 'node:path';

/** Where a thread's own niceness was set, or why it was left alone. */
export type NicenessOutcome = { set: number; tid: number } | { skipped: string };

const MAX_NICENESS = 19;

/**
 * The kernel's id of the calling thread. Linux keeps a niceness per thread and `/proc/thread-self`
 * names the caller's task; Node gives a worker no other way to learn it.
 */
export const currentThreadId = (): number | null => {
  try {
    const tid = Number(path.basename(readlinkSync('/proc/thread-self')));
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
};

/**
 * Makes the calling thread `by` steps nicer than it is (capped at 19), so that under CPU contention
 * the scheduler serves the process's other threads first (docs/decisions.md D47). Threads and
 * processes this thread starts afterwards inherit the value. Raising niceness needs no privilege; on
 * a system without per-thread niceness (anything but Linux) nothing is changed, since there the call
 * would lower the whole process.
 */
export const niceThisThread = (by: number): NicenessOutcome => {
  if (by <= 0) return { skipped: 'niceness 0 asked' };
  if (process.platform !== 'linux') return { skipped: `per-thread niceness is Linux-only (this is ${process.platform})` };
  const tid = currentThreadId();
  if (tid === null) return { skipped: '/proc/thread-self is not readable' };
  try {
    const target = Math.min(MAX_NICENESS, getPriority(tid) + by);
    setPriority(tid, target);
    return { set: target, tid };
  } catch (err) {
    return { skipped: (err as Error).message };
  }
};
