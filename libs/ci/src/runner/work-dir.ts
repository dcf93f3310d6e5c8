import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Beside each scratch checkout `<dir>` lies `<dir>.owner.json`, written before the checkout is made:
 * which process made it and in which repository, so a runner starting after a crash can tell
 * leftovers from checkouts of a runner still alive.
 */
interface Owner {
  pid: number;
  gitDir: string;
}

export const writeOwner = async (checkout: string, gitDir: string): Promise<void> => {
  await fs.mkdir(path.dirname(checkout), { recursive: true });
  const owner: Owner = { pid: process.pid, gitDir };
  await fs.writeFile(`${checkout}.owner.json`, JSON.stringify(owner));
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes every checkout whose owner process is gone; answers how many. */
export const recoverWorkDir = async (workDir: string, remove: (gitDir: string, checkout: string) => Promise<void>): Promise<number> => {
  let removed = 0;
  for (const run of await fs.readdir(workDir).catch(() => [] as string[])) {
    const runDir = path.join(workDir, run);
    for (const entry of await fs.readdir(runDir).catch(() => [] as string[])) {
      if (!entry.endsWith('.owner.json')) continue;
      const ownerFile = path.join(runDir, entry);
      const owner = await fs
        .readFile(ownerFile, 'utf8')
        .then((t) => JSON.parse(t) as Owner)
        .catch(() => null);
      if (owner && owner.pid !== process.pid && isAlive(owner.pid)) continue;
      const checkout = ownerFile.slice(0, -'.owner.json'.length);
      if (owner) await remove(owner.gitDir, checkout);
      else await fs.rm(checkout, { recursive: true, force: true });
      await fs.rm(ownerFile, { force: true });
      removed++;
    }
    // Only succeeds once the run's directory is empty.
    await fs.rmdir(runDir).catch(() => undefined);
  }
  return removed;
};
