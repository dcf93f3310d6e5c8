interface Waiter {
  position: bigint;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/** In-process waitFor: resolves waiters when the checkpoint moves past them, or false on their timeout. */
export class CheckpointWaiters {
  private readonly waiters = new Set<Waiter>();

  wait(position: bigint, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(
          () => {
            this.waiters.delete(waiter);
            resolve(false);
          },
          Math.max(0, timeoutMs),
        ),
      };
      this.waiters.add(waiter);
    });
  }

  reached(checkpoint: bigint): void {
    for (const w of this.waiters) {
      if (w.position > checkpoint) continue;
      clearTimeout(w.timer);
      this.waiters.delete(w);
      w.resolve(true);
    }
  }

  /** Closing the store answers every pending wait with false rather than leaving it hanging. */
  cancelAll(): void {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiters.clear();
  }
}
