/** Counts this process's appends and wakes idle subscriptions after each one. */
export class AppendSignal {
  private count = 0;
  private readonly listeners = new Set<() => void>();

  get appendCount(): number {
    return this.count;
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    this.count += 1;
    for (const listener of [...this.listeners]) listener();
  }
}

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
