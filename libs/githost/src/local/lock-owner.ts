import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a lock file: written into the file when it is taken, so that a writer killed while it
 * held the lock (kill -9, power loss) does not block that PR for ever. A lock is judged abandoned
 * only when its owner is known to be gone: same host and the process no longer runs (or a new
 * process reuses its pid), or, when the file says nothing usable, it is older than any write takes.
 */
export interface LockOwner {
  pid: number;
  host: string;
  /** The process's start time in clock ticks since boot (Linux), to tell a reused pid apart. */
  started?: string;
}

/** Ownerless or unreadable locks are abandoned after this long: a pull file write takes milliseconds. */
export const ORPHAN_LOCK_AGE_MS = 10 * 60_000;

const startOf = (pid: number): string | undefined => {
  try {
    // Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces, so count after its ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
};

export const currentLockOwner = (): LockOwner => {
  const started = startOf(process.pid);
  return { pid: process.pid, host: hostname(), ...(started === undefined ? {} : { started }) };
};

export const parseLockOwner = (text: string): LockOwner | undefined => {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || !Number.isInteger(o.pid) || o.pid <= 0 || typeof o.host !== 'string') return undefined;
    return { pid: o.pid, host: o.host, ...(typeof o.started === 'string' ? { started: o.started } : {}) };
  } catch {
    return undefined;
  }
};

/** Whether a process of this host runs: signal 0 checks without sending anything. */
export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Whether a lock with this content and age was left by a writer that is gone. */
export const isAbandoned = (owner: LockOwner | undefined, ageMs: number): boolean => {
  if (owner === undefined || owner.host !== hostname()) return ageMs > ORPHAN_LOCK_AGE_MS;
  if (!isProcessAlive(owner.pid)) return true;
  const started = startOf(owner.pid);
  return owner.started !== undefined && started !== undefined && started !== owner.started;
};
