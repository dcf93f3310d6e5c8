import { promises as fs } from 'node:fs';

export interface Usage {
  /** Processes and threads: what RLIMIT_NPROC counts. */
  tasks: number;
  /** Proportional set size summed (shared pages split between their sharers), bytes. */
  memoryBytes: number;
}

const field = (text: string, name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);

/**
 * What the processes of `uid` use now, from /proc: without cgroups, a check's own uid (docs/ci.md,
 * "Limits") is how its processes are found, wherever they went (another session, a daemon).
 * Memory is PSS, so a hundred forked workers sharing one library count it once, not a hundred times.
 */
export const usageOfUid = async (uid: number): Promise<Usage> => {
  const usage: Usage = { tasks: 0, memoryBytes: 0 };
  const pids = (await fs.readdir('/proc').catch(() => [] as string[])).filter((e) => /^\d+$/.test(e));
  await Promise.all(
    pids.map(async (pid) => {
      const stat = await fs.stat(`/proc/${pid}`).catch(() => null);
      if (!stat || stat.uid !== uid) return;
      const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      usage.tasks += Math.max(1, field(status, 'Threads'));
      const rollup = await fs.readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
      usage.memoryBytes += (rollup ? field(rollup, 'Pss') : field(status, 'VmRSS')) * 1024;
    }),
  );
  return usage;
};
