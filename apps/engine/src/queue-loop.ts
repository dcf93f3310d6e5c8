import { backoffDelay, type Backoff } from '@railyard/eventstore';
import type { QueueDriver } from '@railyard/queue-driver';

/** The first delay after a failed pass, and the longest however many passes failed in a row. */
export const DEFAULT_BACKOFF: Backoff = { minMs: 200, maxMs: 60_000 };

/** What the loop tells its owner about failures: once when a queue starts failing (or fails differently), once when it recovers. */
export interface LoopObserver {
  /** Every failed pass (a counter metric). */
  onFailure(err: unknown, consecutive: number, delayMs: number): void;
  /** The first failure, or a failure with another error code than the previous one. */
  onFailing(err: unknown, delayMs: number): void | Promise<void>;
  /** The first pass that succeeded after failures. */
  onRecovered(failedPasses: number): void | Promise<void>;
}

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : err instanceof Error ? err.name : 'UNKNOWN';
};

/**
 * Schedules one queue's passes: an event or a tick asks for a pass; passes never overlap, and a
 * request during a pass makes one more pass after it. A failed pass backs off: the next one runs
 * after a capped, jittered exponential delay, on one timer, and every request meanwhile (events,
 * ticks) only marks the queue as due when the timer fires. So a queue whose repository is gone costs
 * one pass per backoff step, not one per tick.
 */
export class QueueLoop {
  private due = false;
  private verifyDue = false;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failures = 0;
  private lastCode: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private soon: { timer: NodeJS.Timeout; fired: Promise<void> } | null = null;

  constructor(
    readonly queueId: string,
    readonly driver: QueueDriver,
    private readonly options: {
      /** Whether this process may drive the queue now (a lease in the distributed shape). */
      owns: (queueId: string) => Promise<boolean>;
      observer: LoopObserver;
      backoff?: Backoff;
    },
  ) {}

  get inBackoff(): boolean {
    return this.retryTimer !== null;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /**
   * Asks for a pass; `verify` re-reads every host fact of the queue instead of trusting what events
   * said. `withinMs` gathers requests: the pass starts that much later and serves every request
   * made meanwhile (a burst of API submissions costs a pass per burst, not one per request).
   */
  schedule(opts: { verify?: boolean; withinMs?: number } = {}): void {
    if (this.stopped) return;
    if (opts.withinMs !== undefined && opts.withinMs > 0 && !opts.verify) {
      if (this.soon !== null || this.retryTimer !== null) return;
      let fire = (): void => undefined;
      const fired = new Promise<void>((resolve) => (fire = resolve));
      const timer = setTimeout(() => {
        this.soon = null;
        this.schedule();
        fire();
      }, opts.withinMs);
      timer.unref();
      this.soon = { timer, fired };
      return;
    }
    this.due = true;
    if (opts.verify) this.verifyDue = true;
    if (this.retryTimer !== null) return;
    this.running ??= this.loop().finally(() => {
      this.running = null;
      if (this.due && !this.stopped && this.retryTimer === null) this.schedule();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.driver.stop();
    this.clearTimer();
    if (this.soon) clearTimeout(this.soon.timer);
    this.soon = null;
    await this.running;
  }

  /** Settles once no pass is running or due (a queue in backoff counts as settled). */
  async idle(): Promise<void> {
    while (this.running || this.soon) await (this.running ?? this.soon?.fired);
  }

  private clearTimer(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private async loop(): Promise<void> {
    while (this.due && !this.stopped) {
      this.due = false;
      const verify = this.verifyDue;
      this.verifyDue = false;
      try {
        if (!(await this.options.owns(this.queueId))) return;
        if ((await this.driver.pass({ verify })) === 'more') this.due = true;
        // A start held for a verdict due within moments goes ahead when its window closes, verdict or not.
        const wakeInMs = this.driver.wakeInMs;
        if (!this.due && wakeInMs !== undefined) this.schedule({ withinMs: wakeInMs + 1 });
        if (this.failures > 0) await this.options.observer.onRecovered(this.failures);
        this.failures = 0;
        this.lastCode = null;
      } catch (err) {
        await this.failed(err);
        return;
      }
    }
  }

  private async failed(err: unknown): Promise<void> {
    this.failures++;
    const backoff = this.options.backoff ?? DEFAULT_BACKOFF;
    const delayMs = backoffDelay(this.failures, backoff);
    this.options.observer.onFailure(err, this.failures, delayMs);
    const code = codeOf(err);
    if (code !== this.lastCode) {
      this.lastCode = code;
      await Promise.resolve(this.options.observer.onFailing(err, delayMs)).catch(() => undefined);
    }
    if (this.stopped) return;
    this.clearTimer();
    // The retry re-reads everything: whatever failed may have left the cached facts behind.
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.schedule({ verify: true });
    }, delayMs);
    this.retryTimer.unref();
  }
}
