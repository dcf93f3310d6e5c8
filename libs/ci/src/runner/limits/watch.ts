import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { CheckCgroup } from './cgroup';
import { MIB, type CheckLimits, type LimitName } from './limits';
import { usageByUid, type Usage } from './proc-usage';

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

const NOTHING: Usage = { tasks: 0, memoryBytes: 0 };

/** One look at everything the check may overrun; `usage` is its uid's, from the poller's pass over /proc. */
const sample = async (w: WatchedCheck, usage: Usage | undefined): Promise<LimitName | null> => {
  if ((await w.log.stat()).size > w.limits.logMib * MIB) return 'log';
  const kernel = await w.cgroup?.hit();
  if (kernel) return kernel;
  if (w.disk) {
    const s = await fs.statfs(w.disk).catch(() => null);
    if (s && s.bavail * s.bsize < FULL_BELOW_BYTES) return 'disk';
  }
  if (usage) {
    if (usage.tasks >= w.limits.processes) return 'processes';
    if (usage.memoryBytes > w.limits.memoryMib * MIB) return 'memory';
  }
  return null;
};

interface Watched {
  uid: number | undefined;
  look: (usage: Usage | undefined) => Promise<void>;
}

/**
 * Looks at every watched check every half second from one timer. The checks counted by uid share one
 * pass over /proc per look, which stats every process of the machine: made per check it cost the
 * server's event loop 1.3 CPU-s in 46 s with five checks (issue 26's engine bench), and grew with
 * checks × processes.
 */
export class LimitPoller {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly scan: (uids: ReadonlySet<number>) => Promise<Map<number, Usage>> = usageByUid,
    private readonly intervalMs = INTERVAL_MS,
  ) {}

  add(w: Watched): void {
    this.watched.add(w);
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  remove(w: Watched): void {
    this.watched.delete(w);
    if (this.watched.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look at every watched check; a look still under way when the next is due is not doubled. */
  tick(): Promise<void> {
    this.looking ??= this.lookAll().finally(() => (this.looking = undefined));
    return this.looking;
  }

  private async lookAll(): Promise<void> {
    const all = [...this.watched];
    const uids = new Set(all.flatMap((w) => (w.uid === undefined ? [] : [w.uid])));
    const usage = uids.size > 0 ? await this.scan(uids).catch(() => new Map<number, Usage>()) : new Map<number, Usage>();
    await Promise.all(all.map((w) => w.look(w.uid === undefined ? undefined : (usage.get(w.uid) ?? NOTHING))));
  }
}

const shared = new LimitPoller();

/**
 * Watches a running check every half second and stops it at the first limit it passes: its log
 * (always: the runner holds that file), and, depending on the host, the kernel's cgroup counters, or
 * its processes' count and memory found by uid, and its disk. The kernel bounds what it can (cgroup,
 * rlimits, the tmpfs); this watch is what turns hitting a bound into a verdict naming it.
 */
export const watchLimits = (w: WatchedCheck, poller: LimitPoller = shared): LimitWatch => {
  let hit: LimitName | null = null;
  let busy: Promise<void> = Promise.resolve();
  const look = (usage: Usage | undefined): Promise<void> =>
    (busy = busy.then(async () => {
      if (hit) return;
      const found = await sample(w, usage).catch(() => null);
      if (!found || hit) return;
      hit = found;
      w.onHit(found);
    }));
  const watched: Watched = { uid: w.uid, look };
  poller.add(watched);
  return {
    stop: async () => {
      poller.remove(watched);
      // The processes are gone: their count and memory no longer say anything.
      await look(undefined);
      return hit;
    },
  };
};
