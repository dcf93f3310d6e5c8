import { readdirSync, readFileSync } from 'node:fs';

// Linux's USER_HZ: the unit of utime/stime in /proc/<pid>/stat, 100 on every mainstream kernel build.
const TICKS_PER_SECOND = 100;

const readOr = (file: string, fallback: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
};

/**
 * User + system CPU seconds one process has used so far, its exited children included (the git runs
 * of the local host are short-lived children; their CPU is part of what a request costs). 0 once gone.
 */
const ownCpuSeconds = (pid: number): number => {
  const stat = readOr(`/proc/${pid}/stat`, '');
  // The command name (field 2) may hold spaces and parentheses; the fields after its last ')' are fixed:
  // utime, stime, cutime, cstime are fields 14 to 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  return ticks / TICKS_PER_SECOND;
};

const childrenOf = (pid: number): number[] => {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => readOr(`/proc/${pid}/task/${tid}/children`, '').split(' ').filter(Boolean).map(Number));
};

/** The process and every descendant it has now, parents first. */
export const processTree = (pid: number): number[] => {
  const tree: number[] = [];
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    tree.push(next);
    pending.push(...childrenOf(next));
  }
  return tree;
};

/**
 * CPU seconds used by a process and all its descendants (tsx starts the real node process as a
 * child). CPU per request is what a shared, busy machine distorts least: throughput depends on who
 * else runs, the work each request costs hardly does. Linux only; elsewhere it reads 0.
 */
export const treeCpuSeconds = (pid: number): number => processTree(pid).reduce((sum, p) => sum + ownCpuSeconds(p), 0);
