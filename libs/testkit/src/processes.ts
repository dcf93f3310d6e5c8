import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';

/**
 * Finding a check's processes from outside its sandbox, where its pids (its own PID namespace's)
 * mean nothing: a check names a process with `exec -a <token>`, and the host's /proc is searched for
 * that argv[0]. Tokens are random, so tests running side by side never see each other's.
 */
export const processToken = (label: string): string => `railyard-test-${label}-${randomBytes(4).toString('hex')}`;

/** A zombie waiting for its parent to reap it counts as gone: it runs nothing. */
const isRunning = async (pid: string): Promise<boolean> => {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
};

/** Host pids of the running processes whose argv[0] starts with `token`. */
export const processesNamed = async (token: string): Promise<number[]> => {
  const found: number[] = [];
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0')[0]?.startsWith(token) && (await isRunning(pid))) found.push(Number(pid));
  }
  return found;
};
