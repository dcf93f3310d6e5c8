import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { CheckCgroup } from './cgroup';
import { MIB, type CheckLimits, type LimitName } from './limits';
import { usageOfUid } from './proc-usage';

/** Below this much free space the check's disk counts as full: its next write fails. */
const FULL_BELOW_BYTES = 64 * 1024;
const INTERVAL_MS = 500;

export interface WatchedCheck {
  limits: CheckLimits;
  /** The check's log, written by the check itself. */
  log: FileHandle;
  /** Its cgroup, when checks get one: the kernel's own counters say what was hit. */
  cgroup?: CheckCgroup;
  /** Its own uid, when it has one (server root, no cgroup): its processes are counted by it. */
  uid?: number;
  /** Its disk, when it is a tmpfs of its own: full means it hit the limit. */
  disk?: string;
  /** Called once, at the first limit found; the caller kills the check. */
  onHit: (limit: LimitName) => void;
}

export interface LimitWatch {
  /** Stops watching, looks once more (the counters outlive the processes) and answers the limit hit, if any. */
  stop(): Promise<LimitName | null>;
}

/** One look at everything the check may overrun. */
const sample = async (w: WatchedCheck, running: boolean): Promise<LimitName | null> => {
  if ((await w.log.stat()).size > w.limits.logMib * MIB) return 'log';
  const kernel = await w.cgroup?.hit();
  if (kernel) return kernel;
  if (w.disk) {
    const s = await fs.statfs(w.disk).catch(() => null);
    if (s && s.bavail * s.bsize < FULL_BELOW_BYTES) return 'disk';
  }
  if (running && w.uid !== undefined) {
    const usage = await usageOfUid(w.uid);
    if (usage.tasks >= w.limits.processes) return 'processes';
    if (usage.memoryBytes > w.limits.memoryMib * MIB) return 'memory';
  }
  return null;
};

/**
 * Watches a running check every half second and stops it at the first limit it passes: its log
 * (always: the runner holds that file), and, depending on the host, the kernel's cgroup counters, or
 * its processes' count and memory found by uid, and its disk. The kernel bounds what it can (cgroup,
 * rlimits, the tmpfs); this watch is what turns hitting a bound into a verdict naming it.
 */
export const watchLimits = (w: WatchedCheck): LimitWatch => {
  let hit: LimitName | null = null;
  let busy: Promise<void> = Promise.resolve();
  const look = (running: boolean): Promise<void> =>
    (busy = busy.then(async () => {
      if (hit) return;
      const found = await sample(w, running).catch(() => null);
      if (!found || hit) return;
      hit = found;
      w.onHit(found);
    }));
  const timer = setInterval(() => void look(true), INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await look(false);
      return hit;
    },
  };
};
