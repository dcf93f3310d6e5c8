import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordedEvent, SubscribeOptions, Subscription } from '../port';

/** Which subscription's onEvents the current async context runs inside, if any. */
const delivering = new AsyncLocalStorage<SubscriptionLoop>();

export const DEFAULT_BATCH_SIZE = 100;

/**
 * What every adapter's subscription shares: one delivery at a time, a handler failure ends the
 * subscription and goes to onError, and close() returns once no handler is running any more.
 */
export abstract class SubscriptionLoop implements Subscription {
  protected closed = false;
  protected readonly batchSize: number;
  private running: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;

  protected constructor(protected readonly options: SubscribeOptions) {
    const size = options.batchSize ?? DEFAULT_BATCH_SIZE;
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`batchSize must be a positive integer, got ${size}`);
    this.batchSize = size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.stopSource();
    // A handler that closes its own subscription would wait for itself; the loop still stops
    // as soon as that handler returns.
    if (delivering.getStore() === this) return;
    await this.running;
  }

  /** Subclasses call this last in their constructor. */
  protected start(): void {
    this.running = this.run().catch((err: unknown) => this.fail(err));
  }

  protected abstract run(): Promise<void>;

  /** Releases whatever the loop may be blocked on (a server stream, a timer). */
  protected stopSource(): Promise<void> {
    return Promise.resolve();
  }

  /** Hands one batch over; false means the handler threw and the subscription has ended. */
  protected async deliver(batch: RecordedEvent[]): Promise<boolean> {
    try {
      await delivering.run(this, () => this.options.onEvents(batch));
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  protected fail(err: unknown): void {
    if (this.closed) return;
    this.closed = true;
    const error = err instanceof Error ? err : new Error(String(err));
    if (!this.options.onError) {
      process.emitWarning(`event store subscription stopped: ${error.message}`);
      return;
    }
    try {
      this.options.onError(error);
    } catch {
      // The subscription is already over; a throwing error callback has nobody left to tell.
    }
  }

  /** Waits `ms`, or less when close() or `extraWake` fires first. */
  protected sleep(ms: number, extraWake?: (wake: () => void) => () => void): Promise<void> {
    return new Promise((resolve) => {
      let unhook = (): void => undefined;
      const done = (): void => {
        clearTimeout(timer);
        unhook();
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      if (extraWake) unhook = extraWake(done);
      if (this.closed) done();
    });
  }
}
