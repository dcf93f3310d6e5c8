import { closeSync, openSync, statSync, utimesSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AppendSignal } from '../shared/append-signal';

/**
 * Wakes this process's subscriptions on a SQLite file when another process appends to it
 * (docs/decisions.md D181). After each commit a writer touches `<file>-appended`; a watch on the
 * directory sees the touch and wakes the subscriptions, which then read the committed events. The
 * WAL itself is not watched: it is written before the commit is visible, so a reader woken by it
 * may find nothing and go back to sleep. Without a wake a subscription hears another process's
 * append only at its next poll, which made commit statuses posted to an API process reach the engine
 * process a poll later than the status files did. Polling stays behind it where watching is not
 * supported (network filesystems). One watch per file per process, held while a subscription is open.
 */
class FileWake {
  private watcher: FSWatcher | null = null;
  /** Whether the watch has seen another process's touch since it started. */
  private othersSeen = false;
  private users = 0;
  private markerExists = false;
  /** The time this process last set, in ms: a touch that still shows it is our own, already signalled. */
  private lastTouch = Number.NaN;
  private readonly markerFile: string;

  constructor(
    private readonly file: string,
    private readonly signal: AppendSignal,
  ) {
    this.markerFile = `${file}-appended`;
  }

  /**
   * True while the watch is on and has seen no other process append: every append so far was this
   * process's own, each signalled as it was made, and another's would be signalled by the watch. A
   * subscription at the end of the log then sleeps after a delivery instead of reading again to find
   * nothing (D48). The first foreign touch ends it for good. The one append it can
   * miss is a foreign one made in the same millisecond just after one of ours, before any other was
   * seen (its touch looks like ours): that one is read at the next poll.
   */
  get onlyWriterSoFar(): boolean {
    return this.watcher !== null && !this.othersSeen;
  }

  /** Tells the other processes' watches that a commit is visible. */
  announce(): void {
    try {
      // Private like the database's own files, and empty: only its time changes.
      if (!this.markerExists) closeSync(openSync(this.markerFile, 'a', 0o600));
      this.markerExists = true;
      const now = Date.now();
      utimesSync(this.markerFile, now / 1000, now / 1000);
      this.lastTouch = now;
    } catch {
      // Removed under us, say: made again next time; the others see this commit at their next poll.
      this.markerExists = false;
    }
  }

  /** Holds the watch until the returned function is called. */
  acquire(): () => void {
    if (this.users++ === 0) this.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users === 0) this.stop();
    };
  }

  private start(): void {
    const name = basename(this.markerFile);
    try {
      this.watcher = watch(dirname(this.file), { persistent: false }, (_event, changed) => {
        if (changed === null || changed.toString() !== name || this.showsOwnTouch()) return;
        this.othersSeen = true;
        this.signal.notify();
      });
      this.watcher.on('error', () => this.stop());
    } catch {
      // No watching here: subscriptions hear other processes' appends at their poll interval.
      this.watcher = null;
    }
  }

  /**
   * Our own commits woke this process's subscriptions when they were made; waking them again per
   * commit cost every subscription an empty read. When another process's touch is overwritten by
   * ours before we look, its commit is seen by the reads ours woke or at the next poll.
   */
  private showsOwnTouch(): boolean {
    try {
      return Math.round(statSync(this.markerFile).mtimeMs) === this.lastTouch;
    } catch {
      return false;
    }
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}

const byFile = new Map<string, FileWake>();

/** The wake of an absolute database path, shared by every store object of this process on it. */
export const fileWakeFor = (absolutePath: string, signal: AppendSignal): FileWake => {
  let wake = byFile.get(absolutePath);
  if (!wake) {
    wake = new FileWake(absolutePath, signal);
    byFile.set(absolutePath, wake);
  }
  return wake;
};
