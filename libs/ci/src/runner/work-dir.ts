import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { isProcessAlive } from '@railyard/githost';

const run = promisify(execFile);

/**
 * One attempt at one check: `<workDir>/<testRunId>/<random>/` holding `src` (the checkout) and `tmp`
 * (the scratch directory, the check's /tmp). The random name makes every attempt's paths its own,
 * even for two runners (an engine and its successor) running the same check of the same run.
 *
 * Beside it lies `<random>.owner.json`, written before the directory is made: which runner made it,
 * so a runner starting after a crash can tell leftovers from the checkouts of a runner still alive.
 */
export interface Attempt {
  dir: string;
  checkout: string;
  scratch: string;
  /** Set when `dir` is a tmpfs of the check's own, sized to its disk limit: the mount point. */
  disk?: string;
}

interface Owner {
  pid: number;
  /** Which runner of that process: a process may hold several (tests do). */
  runner: string;
  check: string;
}

/** Runners alive in this process, by id: their attempts are never leftovers. */
const liveRunners = new Set<string>();

export const registerRunner = (): { id: string; release: () => void } => {
  const id = randomBytes(8).toString('hex');
  liveRunners.add(id);
  return { id, release: () => liveRunners.delete(id) };
};

// Only the server's user may enter; the sandbox mounts what a check needs by itself.
const PRIVATE = 0o700;

/**
 * Makes an attempt's directory. With `diskBytes` (the server runs as root) the directory is a tmpfs
 * of that size, so the checkout and /tmp of the check together cannot grow past its disk limit nor
 * fill the data dir's file system; a mount that fails leaves a plain directory, and `disk` unset.
 */
export const createAttempt = async (
  workDir: string,
  testRunId: string,
  runner: string,
  check: string,
  diskBytes?: number,
): Promise<Attempt & { diskError?: string }> => {
  const runDir = path.join(workDir, testRunId);
  await fs.mkdir(runDir, { recursive: true, mode: PRIVATE });
  const dir = path.join(runDir, randomBytes(6).toString('hex'));
  const owner: Owner = { pid: process.pid, runner, check };
  await fs.writeFile(`${dir}.owner.json`, JSON.stringify(owner), { mode: 0o600, flag: 'wx' });
  await fs.mkdir(dir, { mode: PRIVATE });
  let disk: string | undefined;
  let diskError: string | undefined;
  if (diskBytes !== undefined) {
    try {
      await run('mount', ['-t', 'tmpfs', '-o', `size=${diskBytes},mode=0700,nosuid,nodev`, 'railyard-check', dir]);
      disk = dir;
    } catch (err) {
      diskError = ((err as { stderr?: string }).stderr || (err as Error).message).trim();
    }
  }
  const attempt = { dir, checkout: path.join(dir, 'src'), scratch: path.join(dir, 'tmp'), ...(disk ? { disk } : {}) };
  await fs.mkdir(attempt.scratch, { mode: PRIVATE });
  return diskError ? { ...attempt, diskError } : attempt;
};

/**
 * The directory first, its owner file last: a crash in between leaves a file that recovery finds.
 * A check may leave directories it made read-only (module caches do): their owner can delete them
 * only after giving itself write permission back.
 */
export const removeAttempt = async (dir: string, mounted = true): Promise<void> => {
  // A tmpfs of the check's own goes with its content at once. Leftovers of a dead runner may be one:
  // recovery tries, and a plain directory fails to unmount, quietly.
  const unmount = () => run('umount', ['--lazy', '--', dir]).catch(() => undefined);
  if (mounted) await unmount();
  // A runner killed while its `mount` ran leaves that mount to land after the unmount above: the
  // directory is a mount point again (EBUSY), so it is unmounted again, a few times at most.
  for (let tries = 1; ; tries++) {
    try {
      await removeTree(dir);
      break;
    } catch (err) {
      if (!mounted || (err as NodeJS.ErrnoException).code !== 'EBUSY' || tries === 4) throw err;
      await unmount();
    }
  }
  await fs.rm(`${dir}.owner.json`, { force: true });
};

const removeTree = (dir: string): Promise<void> =>
  fs.rm(dir, { recursive: true, force: true }).catch(async () => {
    await run('chmod', ['-R', 'u+rwX', '--', dir]).catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  });

const isLeftover = (owner: Owner | null): boolean => {
  if (!owner) return true;
  // The same pid as ours after a restart (containers often reuse it) is a previous life unless one
  // of this process's runners made it.
  if (owner.pid === process.pid) return !liveRunners.has(owner.runner);
  return !isProcessAlive(owner.pid);
};

/** Removes every attempt whose runner is gone; answers how many. */
export const recoverWorkDir = async (workDir: string): Promise<number> => {
  let removed = 0;
  for (const run of await fs.readdir(workDir).catch(() => [] as string[])) removed += await recoverRunDir(workDir, run);
  return removed;
};

/**
 * Removes the attempts of one run whose runner is gone (an engine killed mid-check, whose successor
 * now takes the run over); answers how many.
 */
export const recoverRunDir = async (workDir: string, testRunId: string): Promise<number> => {
  let removed = 0;
  const runDir = path.join(workDir, testRunId);
  for (const entry of await fs.readdir(runDir).catch(() => [] as string[])) {
    if (!entry.endsWith('.owner.json')) continue;
    const ownerFile = path.join(runDir, entry);
    const owner = await fs
      .readFile(ownerFile, 'utf8')
      .then((t) => JSON.parse(t) as Owner)
      .catch(() => null);
    if (!isLeftover(owner)) continue;
    await removeAttempt(ownerFile.slice(0, -'.owner.json'.length));
    removed++;
  }
  // Only succeeds once the run's directory is empty.
  await fs.rmdir(runDir).catch(() => undefined);
  return removed;
};
