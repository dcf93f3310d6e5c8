import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GitHostError } from '../errors';
import { isValidBranchName } from './names';
import { currentLockOwner, isAbandoned, parseLockOwner } from './lock-owner';
import { readSmallRegularFile } from './safe-files';

export const PULL_FILE_VERSION = 1;
export const PULL_STATES = ['open', 'closed', 'merged'] as const;
export type PullState = (typeof PULL_STATES)[number];

/**
 * A PR's metadata as the local host keeps it: `<repo>.git/railyard/pulls/<number>.json`.
 * The head is not here: it is the ref `refs/pull/<number>/head`, so a plain `git push` can move it.
 * Fields this version does not know are kept when the file is rewritten (see docs/githost.md).
 */
export interface PullFile {
  version: typeof PULL_FILE_VERSION;
  number: number;
  title: string;
  author: string;
  baseBranch: string;
  /** The branch the head was last set from, when it was given as a branch (not as a commit id). */
  headBranch?: string;
  state: PullState;
  createdAt: string;
  updatedAt: string;
  /** What the host worked out when the PR was opened or updated: valid while base and head are at these commits. */
  mergeability?: StoredMergeability;
  [extra: string]: unknown;
}

export interface StoredMergeability {
  baseSha: string;
  headSha: string;
  value: 'mergeable' | 'not_mergeable';
}

/** The stored answer when it is well-formed and still about `baseSha` and `headSha`; anything else is not known. */
export const storedMergeabilityFor = (pull: PullFile, baseSha: string, headSha: string): 'mergeable' | 'not_mergeable' | undefined => {
  const m = pull.mergeability as Partial<StoredMergeability> | undefined;
  if (!m || typeof m !== 'object' || m.baseSha !== baseSha || m.headSha !== headSha) return undefined;
  return m.value === 'mergeable' || m.value === 'not_mergeable' ? m.value : undefined;
};

export const pullsDirOf = (gitDir: string): string => path.join(gitDir, 'railyard', 'pulls');
export const pullFileOf = (gitDir: string, number: number): string => path.join(pullsDirOf(gitDir), `${number}.json`);
export const pullHeadRefOf = (number: number): string => `refs/pull/${number}/head`;

/**
 * Where a PR's head is now. The head ref `refs/pull/<N>/head` must exist (without it there is no PR,
 * docs/githost.md); an open PR opened (or last updated) from a branch then follows that branch, as a
 * forge's PR follows pushes to its branch, so a plain `git push` to the branch updates the PR. With
 * the branch deleted, or once closed or merged, the head ref says (a merged PR keeps the head it had).
 */
export const pullHeadOf = async (
  refs: { read(gitDir: string, refname: string): Promise<string | null> },
  gitDir: string,
  number: number,
  pull: Pick<PullFile, 'state' | 'headBranch'> | null,
): Promise<string | null> => {
  const recorded = await refs.read(gitDir, pullHeadRefOf(number));
  if (recorded === null || pull?.state !== 'open' || pull.headBranch === undefined) return recorded;
  return (await refs.read(gitDir, `refs/heads/${pull.headBranch}`)) ?? recorded;
};

/** The PR's file, or null when the repository or the file does not exist. A malformed file throws. */
export const readPullFile = async (gitDir: string, number: number): Promise<PullFile | null> => {
  const file = pullFileOf(gitDir, number);
  // Synchronous on purpose, as for loose refs (refs.ts): a small file on every submission's path.
  const text = readSmallRegularFile(gitDir, path.relative(gitDir, file));
  return text === null ? null : parsePullFile(text, number, file);
};

export const parsePullFile = (text: string, number: number, where: string): PullFile => {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw corrupt(where, `not JSON (${(err as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw corrupt(where, 'not a JSON object');
  const o = data as Record<string, unknown>;
  if (o.version !== PULL_FILE_VERSION) throw corrupt(where, `version must be ${PULL_FILE_VERSION}`);
  if (o.number !== number) throw corrupt(where, `number must be ${number}, as in the file name`);
  for (const field of ['title', 'author', 'createdAt', 'updatedAt'] as const) {
    if (typeof o[field] !== 'string') throw corrupt(where, `${field} must be a string`);
  }
  if (!isValidBranchName(o.baseBranch)) throw corrupt(where, 'baseBranch must be a valid branch name');
  if (o.headBranch !== undefined && !isValidBranchName(o.headBranch)) throw corrupt(where, 'headBranch must be a valid branch name');
  if (!PULL_STATES.includes(o.state as PullState)) throw corrupt(where, `state must be one of ${PULL_STATES.join(', ')}`);
  return o as PullFile;
};

const corrupt = (where: string, why: string): GitHostError => new GitHostError('CORRUPT_PR_FILE', `${where}: ${why}`);

/**
 * Holds `<number>.json.lock`, created exclusively, for the length of one read-modify-write; commit()
 * writes the new content to a file of its own and renames it over the PR file, which is atomic, so
 * readers see the old file or the new one and never a part. The lock file names its owner, so a lock
 * a killed writer left behind is taken over (lock-owner.ts) instead of blocking the PR for ever.
 */
export class PullFileLock {
  private done = false;

  private constructor(
    private readonly file: string,
    private readonly handle: fs.FileHandle,
  ) {}

  static async acquire(gitDir: string, number: number): Promise<PullFileLock> {
    const file = pullFileOf(gitDir, number);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Twice at most: once more after taking over a lock its writer abandoned.
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await fs.open(`${file}.lock`, 'wx');
        await handle.write(JSON.stringify(currentLockOwner()), 0).catch(async (err: unknown) => {
          await handle.close().catch(() => undefined);
          await fs.rm(`${file}.lock`, { force: true });
          throw err;
        });
        return new PullFileLock(file, handle);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if (attempt === 0 && (await takeOverAbandoned(`${file}.lock`))) continue;
        throw new GitHostError(
          'LOCKED',
          `${file}.lock exists: another writer is updating PR #${number} (remove the file if no writer is running)`,
        );
      }
    }
  }

  async commit(pull: PullFile): Promise<void> {
    // The content goes through a file of its own, so the lock keeps naming its owner until it is
    // removed: a writer killed at any instant leaves a lock that can be judged abandoned.
    const next = newContentFileOf(this.file, process.pid);
    const out = await fs.open(next, 'w', 0o644);
    try {
      await out.writeFile(`${JSON.stringify(pull, null, 2)}\n`, 'utf8');
      await out.sync();
    } finally {
      await out.close();
    }
    await fs.rename(next, this.file);
    await this.release();
  }

  /** Gives the lock up (without writing, unless commit() wrote); a second call does nothing. */
  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    await fs.rm(`${this.file}.lock`, { force: true });
  }
}

/**
 * Moves an abandoned lock out of the way (lock-owner.ts says when a lock is abandoned). The lock is
 * first renamed aside and checked again, so a lock another writer took meanwhile is put back, not lost.
 */
const takeOverAbandoned = async (lockFile: string): Promise<boolean> => {
  const seen = await readLock(lockFile);
  if (seen === null) return false;
  const owner = parseLockOwner(seen.text);
  if (!isAbandoned(owner, Date.now() - seen.mtimeMs)) return false;
  const aside = `${lockFile}.abandoned-${process.pid}-${Date.now()}`;
  try {
    await fs.rename(lockFile, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
  const moved = await readLock(aside);
  if (moved !== null && moved.text !== seen.text) {
    // Another writer's fresh lock: back where it was, unless a third writer holds the path by now.
    await fs.link(aside, lockFile).catch(() => undefined);
    await fs.rm(aside, { force: true });
    return false;
  }
  await fs.rm(aside, { force: true });
  // What the dead writer may have left half-written, had it died inside commit().
  if (owner !== undefined) await fs.rm(newContentFileOf(lockFile.slice(0, -'.lock'.length), owner.pid), { force: true });
  return true;
};

const newContentFileOf = (file: string, pid: number): string => `${file}.new-${pid}`;

const readLock = async (file: string): Promise<{ text: string; mtimeMs: number } | null> => {
  try {
    const [text, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    return { text, mtimeMs: stat.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
};
