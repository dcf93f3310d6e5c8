/**
 * At most `limit` holders at once; the rest wait in arrival order. A waiter whose signal aborts
 * leaves the line at once, so a cancelled run does not wait for another run's checks to finish.
 */
export class Slots {
  private held = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }

  /** Resolves true with a slot (give it back with release()), or false when the signal aborted first. */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.held < this.limit) {
      this.held++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(): void {
    // Handed straight to the next waiter, so a newcomer cannot slip in between.
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.held--;
  }

  get inUse(): number {
    return this.held;
  }
}
