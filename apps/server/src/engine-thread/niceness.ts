import { randomFill } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

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

/**
 * Starts libuv's thread pool (fs, crypto, dns work) from the calling thread, if it has not started.
 * The pool is the process's, made on its first use by whichever thread uses it first, and its threads
 * inherit that thread's niceness: started by a nicer engine thread they would serve the API's work at
 * the engine's priority. So the server calls this before it starts the engine thread. A crypto job
 * because it always runs on the pool (libuv may do some file operations without it).
 */
export const startThreadPool = async (): Promise<void> => {
  await promisify(randomFill)(Buffer.alloc(1));
};
