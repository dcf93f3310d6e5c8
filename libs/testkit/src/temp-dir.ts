import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

/** A new empty directory under the OS temp dir; remove it with removeTempDir when the test is done. */
export const makeTempDir = (prefix = 'railyard-test-'): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), prefix));

/** Mount points below `dir` (/proc/self/mounts escapes spaces as \040), deepest first. */
const mountsBelow = async (dir: string): Promise<string[]> => {
  const table = await fs.readFile('/proc/self/mounts', 'utf8').catch(() => '');
  return table
    .split('\n')
    .map((line) => (line.split(' ')[1] ?? '').replace(/\\040/g, ' '))
    .filter((point) => point.startsWith(`${dir}${path.sep}`))
    .sort((a, b) => b.length - a.length);
};

/**
 * Removes the directory and everything in it. A process a test just killed may still be writing
 * there for a moment (git finishing an object, a check's last output), which makes the removal find
 * a directory it emptied no longer empty (ENOTEMPTY). Node's own retries give up after about 1.5 s,
 * which a loaded machine outlasts (temp-dir.int failed so with two jest workers), so the removal is
 * tried again for as long as such a writer can plausibly run: a test's leftovers, not a daemon.
 * A CI runner a test killed with SIGKILL leaves its checks' tmpfs mounted (a restarted runner's
 * recovery unmounts them, libs/ci work-dir.ts): they are unmounted here the same way, or the
 * removal cannot finish.
 */
export const removeTempDir = async (dir: string): Promise<void> => {
  for (const point of await mountsBelow(dir)) await promisify(execFile)('umount', ['--lazy', '--', point]).catch(() => undefined);
  const until = Date.now() + REMOVAL_PATIENCE_MS;
  for (;;) {
    try {
      await fs.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EBUSY') || Date.now() > until) throw err;
    }
  }
};

const REMOVAL_PATIENCE_MS = 30_000;
