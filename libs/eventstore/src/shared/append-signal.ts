/** Called after an append with the log's last position then, or null when the waker cannot tell. */
export type AppendWake = (head: bigint | null) => void;

/** Counts this process's appends (and, for some stores, everyone's) and wakes idle subscriptions after each one. */
export class AppendSignal {
  private count = 0;
  /** The count at the last wake-up that did not say where the log ends. */
  private lastBlindCount = 0;
  private highestHead: bigint | null = null;
  private readonly listeners = new Set<AppendWake>();

  get appendCount(): number {
    return this.count;
  }

  onAppend(listener: AppendWake): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * `head`, when known, is the position of the last event the append made: a subscription already
   * past it has nothing to read (PostgreSQL hears of its own appends twice: on commit and by NOTIFY).
   */
  notify(head: bigint | null = null): void {
    this.count += 1;
    if (head === null) this.lastBlindCount = this.count;
    else if (this.highestHead === null || head > this.highestHead) this.highestHead = head;
    for (const listener of [...this.listeners]) listener(head);
  }

  /**
   * Whether an append signalled after the count was `since` may hold events past `after`: a reader
   * that delivered up to `after` reads again only then.
   */
  newsSince(since: number, after: bigint | null): boolean {
    if (this.count === since) return false;
    return this.lastBlindCount > since || mayHaveNews(this.highestHead, after);
  }
}

/** True when a wake-up may have something for a reader that has delivered up to `after`. */
export const mayHaveNews = (head: bigint | null, after: bigint | null): boolean => head === null || after === null || head > after;

const byFile = new Map<string, AppendSignal>();

/**
 * One signal per database file in this process, so a store object wakes the subscriptions of every
 * other store object open on the same file (the API and the projector may each open their own).
 */
export function appendSignalForFile(absolutePath: string): AppendSignal {
  let signal = byFile.get(absolutePath);
  if (!signal) {
    signal = new AppendSignal();
    byFile.set(absolutePath, signal);
  }
  return signal;
}
