import { randomUUID } from 'node:crypto';
import type { RepoRef } from '@railyard/domain';
import { existingRepoDir } from './repos';
import { readStatusFile, statusFileOf, StatusFileLock, validateStatusInput } from './statuses-file';
import { appendJournal, JournalWatcher } from './statuses-journal';

import type { CommitStatus, CommitStatusInput, CommitStatusListener, CommitStatusStore } from '../statuses/port';

export {
  COMMIT_STATUS_STATES,
  type CommitStatus,
  type CommitStatusInput,
  type CommitStatusListener,
  type CommitStatusState,
  type CommitStatusStore,
} from '../statuses/port';

export interface LocalCommitStatusStoreOptions {
  /** Directory holding `<host>/<owner>/<name>.git`. */
  root: string;
  /** How often other processes' changes are looked for when file watching says nothing. */
  pollMs?: number;
  /** How often the root is scanned for repositories that got their first status. */
  discoverMs?: number;
  /** Journal size after which a writer starts a new one. */
  journalRotateBytes?: number;
  clock?: () => Date;
}

/**
 * The local host's statuses: one JSON file per commit inside the bare repository, replaced
 * atomically under a lock, plus an append-only journal per repository that tells other processes
 * which commits changed (see docs/ci.md for the format).
 */
export class LocalCommitStatusStore implements CommitStatusStore {
  readonly root: string;
  /** Marks this instance's journal lines, so its own changes are not announced twice. */
  readonly writerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly listeners = new Set<CommitStatusListener>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly clock: () => Date;
  private readonly rotateBytes: number;
  private readonly watcher: JournalWatcher;

  constructor(private readonly opts: LocalCommitStatusStoreOptions) {
    this.root = opts.root;
    this.clock = opts.clock ?? (() => new Date());
    this.rotateBytes = opts.journalRotateBytes ?? 1024 * 1024;
    this.watcher = new JournalWatcher({
      root: opts.root,
      pollMs: opts.pollMs ?? 250,
      discoverMs: opts.discoverMs ?? 2000,
      ignoreWriter: this.writerId,
      onChange: (repo, sha) => this.emit(repo, sha),
    });
  }

  async set(repo: RepoRef, sha: string, input: CommitStatusInput): Promise<CommitStatus> {
    const clean = validateStatusInput(sha, input);
    const gitDir = await existingRepoDir(this.root, repo);
    const file = statusFileOf(gitDir, sha);
    const stored = await this.serialised(file, async () => {
      const lock = await StatusFileLock.acquire(file);
      try {
        const current = await readStatusFile(file, sha);
        const now = this.clock().toISOString();
        const previous = current.statuses.find((s) => s.context === clean.context);
        const next: CommitStatus = { ...clean, createdAt: previous?.createdAt ?? now, updatedAt: now };
        const statuses = previous ? current.statuses.map((s) => (s === previous ? next : s)) : [...current.statuses, next];
        await lock.commit({ version: 1, sha, statuses });
        return next;
      } finally {
        await lock.release();
      }
    });
    await appendJournal(
      gitDir,
      { sha, context: stored.context, state: stored.state, at: stored.updatedAt, writer: this.writerId },
      this.rotateBytes,
    );
    this.emit(repo, sha);
    return stored;
  }

  async list(repo: RepoRef, sha: string): Promise<CommitStatus[]> {
    validateStatusInput(sha);
    const gitDir = await existingRepoDir(this.root, repo);
    return (await readStatusFile(statusFileOf(gitDir, sha), sha)).statuses;
  }

  onChange(listener: CommitStatusListener): () => void {
    this.listeners.add(listener);
    this.watcher.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.watcher.stop();
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.watcher.stop();
    await Promise.allSettled([...this.chains.values()]);
  }

  private emit(repo: RepoRef, sha: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(repo, sha);
      } catch {
        // A failing listener must not keep the others (or the writer) from hearing about the change.
      }
    }
  }

  // Writers of one process queue per file instead of spinning on each other's lock file.
  private serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(key) ?? Promise.resolve()).then(task, task);
    const tail = run.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return run;
  }
}
