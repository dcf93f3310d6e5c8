import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GitHostError } from '../errors';
import type { CommitStatus } from '../statuses/port';

export { MAX_CONTEXT_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_TARGET_URL_LENGTH, validateStatusInput } from '../statuses/validate';

export const STATUS_FILE_VERSION = 1;
export interface StatusFile {
  version: typeof STATUS_FILE_VERSION;
  sha: string;
  statuses: CommitStatus[];
}

export const statusesDirOf = (gitDir: string): string => path.join(gitDir, 'railyard', 'statuses');

/** Fanned out by the first two hex digits, as git's loose objects are, so no directory grows huge. */
export const statusFileOf = (gitDir: string, sha: string): string => path.join(statusesDirOf(gitDir), sha.slice(0, 2), `${sha}.json`);

/** The commit's statuses; a commit nobody reported on has an empty list. A damaged file throws. */
export const readStatusFile = async (file: string, sha: string): Promise<StatusFile> => {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: STATUS_FILE_VERSION, sha, statuses: [] };
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new GitHostError('CORRUPT_STATUS_FILE', `${file}: not JSON (${(err as Error).message})`);
  }
  const o = data as Partial<StatusFile> | null;
  if (!o || o.version !== STATUS_FILE_VERSION || o.sha !== sha || !Array.isArray(o.statuses))
    throw new GitHostError('CORRUPT_STATUS_FILE', `${file}: expected {"version":1,"sha":"${sha}","statuses":[…]}`);
  return o as StatusFile;
};

const LOCK_WAIT_MS = 10_000;
/** A writer holds the lock for a few milliseconds; one this old was left by a writer that died. */
const STALE_LOCK_MS = 30_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `<file>.lock`, created exclusively, for one read-modify-write: git's own lock protocol, so the file
 * is replaced by rename and readers never see half of it. Unlike the PR files' lock, a lock left
 * behind is broken after STALE_LOCK_MS, because statuses are written by machines that will not
 * stop to let someone remove it by hand.
 */
export class StatusFileLock {
  private done = false;

  private constructor(
    private readonly file: string,
    private readonly handle: fs.FileHandle,
  ) {}

  static async acquire(file: string): Promise<StatusFileLock> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const lockFile = `${file}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return new StatusFileLock(file, await fs.open(lockFile, 'wx'));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const age = await fs.stat(lockFile).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) {
        // Renamed away first: of two processes breaking the same stale lock, only one succeeds.
        const aside = `${lockFile}.stale-${process.pid}-${attempt}`;
        if (
          await fs.rename(lockFile, aside).then(
            () => true,
            () => false,
          )
        )
          await fs.rm(aside, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new GitHostError('LOCKED', `${lockFile} stayed locked for ${LOCK_WAIT_MS / 1000}s`);
      await sleep(2 + Math.random() * Math.min(50, 2 ** attempt));
    }
  }

  async commit(content: StatusFile): Promise<void> {
    await this.handle.writeFile(`${JSON.stringify(content)}\n`, 'utf8');
    await this.handle.sync();
    await this.handle.close();
    await fs.rename(`${this.file}.lock`, this.file);
    this.done = true;
  }

  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    await fs.rm(`${this.file}.lock`, { force: true });
  }
}
