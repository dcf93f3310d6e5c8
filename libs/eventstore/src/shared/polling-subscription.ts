import type { RecordedEvent, SubscribeOptions } from '../port';
import { mayHaveNews, type AppendSignal } from './append-signal';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { SubscriptionLoop } from './subscription-loop';

/** A store that can be read by position and tells its own process when it has appended. */
export interface PollSource {
  readAfter(after: bigint | null, maxCount: number): Promise<RecordedEvent[]>;
  /** Fires after each append made through this store object (and, for some stores, by anyone). */
  signal: AppendSignal;
  /**
   * The signal also fires for appends by other processes (PostgreSQL's NOTIFY, a SQLite file only
   * this process has been seen writing): then a short page is known to be the end of the log until
   * the signal fires, and is not read again to find nothing. Without it (a SQLite file shared by
   * processes) appends made during a delivery are only found by reading again, so the loop does so
   * at once rather than after a poll interval. Read after every delivery, so it may change.
   */
  readonly signalsEveryAppend?: boolean;
}

/**
 * Catch-up and live are one loop: read a page after the last delivered position, deliver it, and
 * at the end of the log sleep until the store's signal or the poll interval (appends from other
 * processes sharing a SQLite file are only seen by polling).
 */
export class PollingSubscription extends SubscriptionLoop {
  constructor(
    private readonly source: PollSource,
    options: SubscribeOptions,
    private readonly pollIntervalMs: number,
    private readonly backoff: BackoffPolicy,
  ) {
    super(options);
    this.start();
  }

  protected async run(): Promise<void> {
    let after = this.options.fromPosition;
    let failures = 0;
    while (!this.closed) {
      const appendsBefore = this.source.signal.appendCount;
      let batch: RecordedEvent[];
      try {
        batch = await this.source.readAfter(after, this.batchSize);
        failures = 0;
      } catch (err) {
        if (this.closed) return;
        failures += 1;
        if (failures >= this.backoff.maxAttempts) return this.fail(err);
        await this.sleep(backoffDelay(failures, this.backoff));
        continue;
      }
      if (this.closed) return;
      const last = batch[batch.length - 1];
      if (!last) {
        // An append between the read and here would otherwise wait a whole interval.
        if (!this.source.signal.newsSince(appendsBefore, after)) await this.sleepUntilNews(after);
        continue;
      }
      if (!(await this.deliver(batch))) return;
      after = last.position;
      // A short page reached the end of the log as it was when read; where the signal tells of every
      // append, reading again would be a round trip per subscription per append to find nothing.
      if (this.source.signalsEveryAppend === true && batch.length < this.batchSize && !this.source.signal.newsSince(appendsBefore, after)) {
        await this.sleepUntilNews(after);
      }
    }
  }

  /**
   * Until an append this reader has not delivered is signalled, or the poll interval passes. A
   * wake-up for a position already delivered (a store's echo of its own append) is not a reason to
   * read again.
   */
  private sleepUntilNews(after: bigint | null): Promise<void> {
    return this.sleep(this.pollIntervalMs, (wake) =>
      this.source.signal.onAppend((head) => {
        if (mayHaveNews(head, after)) wake();
      }),
    );
  }
}
