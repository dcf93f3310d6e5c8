import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GitHostError } from '../errors';
import { isObjectId } from './names';
import type { CommitStatus, CommitStatusInput } from './statuses';

export const STATUS_FILE_VERSION = 1;
export const MAX_CONTEXT_LENGTH = 255;
export const MAX_TARGET_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 1024;
const STATES = ['pending', 'success', 'failure', 'error'];

export interface StatusFile {
  version: typeof STATUS_FILE_VERSION;
  sha: string;
  statuses: CommitStatus[];
}

export const statusesDirOf = (gitDir: string): string => path.join(gitDir, 'railyard', 'statuses');

/** Fanned out by the first two hex digits, as git's loose objects are, so no directory grows huge. */
export const statusFileOf = (gitDir: string, sha: string): string => path.join(statusesDirOf(gitDir), sha.slice(0, 2), `${sha}.json`);

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

const invalid = (message: string): GitHostError => new GitHostError('INVALID_INPUT', message);

/** Checks the sha (always) and the status (when given); answers the status without unknown fields. */
export function validateStatusInput(sha: string): undefined;
export function validateStatusInput(sha: string, input: CommitStatusInput): CommitStatusInput;
export function validateStatusInput(sha: string, input?: CommitStatusInput): CommitStatusInput | undefined {
  if (typeof sha !== 'string' || !isObjectId(sha))
    throw invalid(`sha must be a full lower-case commit id (40 or 64 hex digits), got ${JSON.stringify(sha)}`);
  if (input === undefined) return undefined;
  const { context, state, targetUrl, description } = input;
  if (typeof context !== 'string' || context.trim() === '' || context.length > MAX_CONTEXT_LENGTH || CONTROL.test(context))
    throw invalid(`context must be 1-${MAX_CONTEXT_LENGTH} characters without control characters`);
  if (!STATES.includes(state)) throw invalid(`state must be one of ${STATES.join(', ')}`);
  if (
    targetUrl !== undefined &&
    (typeof targetUrl !== 'string' || targetUrl.length > MAX_TARGET_URL_LENGTH || !/^https?:\/\/[^\s]+$/i.test(targetUrl))
  )
    throw invalid(`targetUrl must be an http(s) URL of at most ${MAX_TARGET_URL_LENGTH} characters`);
  if (description !== undefined && (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH))
    throw invalid(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  return {
    context,
    state,
    ...(targetUrl !== undefined ? { targetUrl } : {}),
    ...(description !== undefined ? { description } : {}),
  };
}

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
