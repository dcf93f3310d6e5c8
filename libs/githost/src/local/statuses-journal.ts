import { watch, promises as fs, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { isValidRepoSegment, repoDirOf } from './names';
import { statusesDirOf } from './statuses-file';

/** One line of a repository's status journal: which commit changed, and who changed it. */
export interface JournalLine {
  sha: string;
  context: string;
  state: string;
  at: string;
  writer: string;
}

export const journalFileOf = (gitDir: string): string => path.join(statusesDirOf(gitDir), 'journal');
const rotatedFileOf = (gitDir: string): string => `${journalFileOf(gitDir)}.1`;

/**
 * Appends one line (a single O_APPEND write, so lines from several processes never interleave) and
 * starts a new journal once this one is over `rotateBytes`, keeping the previous one as `journal.1`
 * for readers that have not finished it.
 */
export const appendJournal = async (gitDir: string, line: JournalLine, rotateBytes: number): Promise<void> => {
  const file = journalFileOf(gitDir);
  await fs.appendFile(file, `${JSON.stringify(line)}\n`, 'utf8');
  const size = await fs.stat(file).then(
    (s) => s.size,
    () => 0,
  );
  if (size > rotateBytes) await rotate(gitDir, rotateBytes);
};

const rotate = async (gitDir: string, rotateBytes: number): Promise<void> => {
  const file = journalFileOf(gitDir);
  const lock = `${file}.lock`;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(lock, 'wx');
  } catch {
    // Someone else is rotating (or died doing it: a lock older than a minute is cleared for next time).
    const age = await fs.stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > 60_000) await fs.rm(lock, { force: true });
    return;
  }
  try {
    const size = await fs.stat(file).then(
      (s) => s.size,
      () => 0,
    );
    if (size > rotateBytes) await fs.rename(file, rotatedFileOf(gitDir));
  } finally {
    await handle.close();
    await fs.rm(lock, { force: true });
  }
};

interface Tracked {
  repo: RepoRef;
  gitDir: string;
  /** Inode of the journal being followed, null before it exists. */
  ino: number | null;
  offset: number;
  watcher?: FSWatcher;
  reading: boolean;
  again: boolean;
}

export interface JournalWatcherOptions {
  root: string;
  pollMs: number;
  discoverMs: number;
  /** Lines written by this writer are skipped: the writer announced them itself. */
  ignoreWriter: string;
  onChange: (repo: RepoRef, sha: string) => void;
}

/**
 * Follows every repository's journal under the root and reports the commits other processes
 * changed. fs.watch makes it prompt where the platform supports it; polling makes it correct where
 * it does not (network filesystems), and new repositories are found by scanning the root.
 */
export class JournalWatcher {
  private readonly tracked = new Map<string, Tracked>();
  private timers: NodeJS.Timeout[] = [];
  private running = false;
  private generation = 0;

  constructor(private readonly opts: JournalWatcherOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    const generation = ++this.generation;
    // Repositories present now are followed from their journal's current end: listeners hear of
    // changes made after they subscribed, not of the whole history.
    void this.discover(true, generation);
    const poll = setInterval(() => {
      for (const t of this.tracked.values()) void this.read(t);
    }, this.opts.pollMs);
    const discover = setInterval(() => void this.discover(false, generation), this.opts.discoverMs);
    poll.unref();
    discover.unref();
    this.timers = [poll, discover];
  }

  stop(): void {
    this.running = false;
    this.generation++;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    for (const t of this.tracked.values()) t.watcher?.close();
    this.tracked.clear();
  }

  private async discover(initial: boolean, generation: number): Promise<void> {
    const repos = await listRepositories(this.opts.root);
    for (const repo of repos) {
      if (!this.running || generation !== this.generation) return;
      const gitDir = repoDirOf(this.opts.root, repo);
      if (gitDir === null || this.tracked.has(gitDir)) continue;
      const t: Tracked = { repo, gitDir, ino: null, offset: 0, reading: false, again: false };
      if (initial) {
        const stat = await fs.stat(journalFileOf(gitDir)).catch(() => null);
        if (stat) {
          t.ino = stat.ino;
          t.offset = stat.size;
        }
      }
      if (generation !== this.generation) return;
      this.tracked.set(gitDir, t);
      this.watchDir(t);
      if (!initial) void this.read(t);
    }
  }

  private watchDir(t: Tracked): void {
    if (t.watcher) return;
    try {
      t.watcher = watch(statusesDirOf(t.gitDir), { persistent: false }, () => void this.read(t));
      t.watcher.on('error', () => {
        t.watcher?.close();
        t.watcher = undefined;
      });
    } catch {
      // No statuses yet (or no fs.watch here): polling covers it, and the next read tries again.
    }
  }

  private async read(t: Tracked): Promise<void> {
    if (t.reading) {
      t.again = true;
      return;
    }
    t.reading = true;
    try {
      do {
        t.again = false;
        await this.readOnce(t);
      } while (t.again && this.running);
    } catch {
      // A journal that cannot be read now is read again at the next poll.
    } finally {
      t.reading = false;
    }
  }

  private async readOnce(t: Tracked): Promise<void> {
    const stat = await fs.stat(journalFileOf(t.gitDir)).catch(() => null);
    if (!stat) return;
    if (!t.watcher) this.watchDir(t);
    if (t.ino !== null && stat.ino !== t.ino) {
      // Rotated since the last read: finish the old journal, now journal.1, then start the new one.
      const old = await fs.stat(rotatedFileOf(t.gitDir)).catch(() => null);
      if (old && old.ino === t.ino && old.size > t.offset) await this.consume(t, rotatedFileOf(t.gitDir), t.offset, old.size);
      t.offset = 0;
    }
    t.ino = stat.ino;
    // Shorter than what was read: truncated by an operator; start over rather than stall.
    if (stat.size < t.offset) t.offset = 0;
    if (stat.size > t.offset) t.offset += await this.consume(t, journalFileOf(t.gitDir), t.offset, stat.size);
  }

  /** Reports the commits of the complete lines in [from, to); answers how many bytes those lines took. */
  private async consume(t: Tracked, file: string, from: number, to: number): Promise<number> {
    const handle = await fs.open(file, 'r');
    let bytes: Buffer;
    try {
      bytes = Buffer.alloc(to - from);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, from);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    const end = bytes.lastIndexOf(0x0a);
    if (end < 0) return 0;
    const changed = new Set<string>();
    for (const text of bytes.subarray(0, end).toString('utf8').split('\n')) {
      try {
        const line = JSON.parse(text) as Partial<JournalLine>;
        if (typeof line.sha === 'string' && line.writer !== this.opts.ignoreWriter) changed.add(line.sha);
      } catch {
        // A damaged line names no commit; the rest of the journal still counts.
      }
    }
    if (this.running) for (const sha of changed) this.opts.onChange(t.repo, sha);
    return end + 1;
  }
}

const readDir = (dir: string): Promise<string[]> => fs.readdir(dir).catch(() => [] as string[]);

/** Every `<host>/<owner>/<name>.git` under the root whose parts are valid repository names. */
export const listRepositories = async (root: string): Promise<RepoRef[]> => {
  const repos: RepoRef[] = [];
  for (const host of (await readDir(root)).filter(isValidRepoSegment)) {
    for (const owner of (await readDir(path.join(root, host))).filter(isValidRepoSegment)) {
      for (const entry of await readDir(path.join(root, host, owner))) {
        const name = entry.endsWith('.git') ? entry.slice(0, -'.git'.length) : '';
        if (isValidRepoSegment(name)) repos.push({ host, owner, name });
      }
    }
  }
  return repos;
};
