import { promises as fs } from 'node:fs';

export interface Usage {
  /** Processes and threads: what RLIMIT_NPROC counts. */
  tasks: number;
  /** Proportional set size summed (shared pages split between their sharers), bytes. */
  memoryBytes: number;
}

const field = (text: string, name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);

/**
 * What the processes of each of `uids` use now, from /proc: without cgroups, a check's own uid
 * (docs/ci.md, "Limits") is how its processes are found, wherever they went (another session, a
 * daemon). One pass over /proc answers every uid asked for (a uid with no process is absent): the
 * pass stats every process of the machine, so it is made once for all the checks watched, not once
 * per check. Memory is PSS, so a hundred forked workers sharing one library count it once.
 */
export const usageByUid = async (uids: ReadonlySet<number>): Promise<Map<number, Usage>> => {
  const usage = new Map<number, Usage>();
  const pids = (await fs.readdir('/proc').catch(() => [] as string[])).filter((e) => /^\d+$/.test(e));
  await Promise.all(
    pids.map(async (pid) => {
      const stat = await fs.stat(`/proc/${pid}`).catch(() => null);
      if (!stat || !uids.has(stat.uid)) return;
      const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      const rollup = await fs.readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
      const u = usage.get(stat.uid) ?? { tasks: 0, memoryBytes: 0 };
      u.tasks += Math.max(1, field(status, 'Threads'));
      u.memoryBytes += (rollup ? field(rollup, 'Pss') : field(status, 'VmRSS')) * 1024;
      usage.set(stat.uid, u);
    }),
  );
  return usage;
};
