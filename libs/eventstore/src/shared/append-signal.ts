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
