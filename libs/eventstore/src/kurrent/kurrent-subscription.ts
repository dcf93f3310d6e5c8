import type { AllStreamSubscription, KurrentDBClient } from '@kurrent/kurrentdb-client';
import type { RecordedEvent, SubscribeOptions } from '../port';
import { backoffDelay, type BackoffPolicy } from '../shared/backoff';
import { SubscriptionLoop } from '../shared/subscription-loop';
import { kurrentdb } from './client';
import { toRecorded } from './kurrent-mapping';

type ReadPage = (after: bigint | null, maxCount: number) => Promise<RecordedEvent[]>;

/**
 * Catch-up by reading pages of $all, then a live subscribeToAll from the last delivered position.
 * The server does not resume a dropped subscription, so on any error the loop starts over from
 * the last delivered position, after a capped backoff.
 */
export class KurrentSubscription extends SubscriptionLoop {
  private live: AllStreamSubscription | null = null;

  constructor(
    private readonly client: KurrentDBClient,
    private readonly readPage: ReadPage,
    options: SubscribeOptions,
    private readonly backoff: BackoffPolicy,
  ) {
    super(options);
    this.start();
  }

  protected override async stopSource(): Promise<void> {
    const live = this.live;
    this.live = null;
    if (live) await live.unsubscribe().catch(() => undefined);
  }

  protected async run(): Promise<void> {
    let after = this.options.fromPosition;
    let failures = 0;
    while (!this.closed) {
      try {
        for (;;) {
          const page = await this.readPage(after, this.batchSize);
          const last = page[page.length - 1];
          if (this.closed || !last) break;
          if (!(await this.deliver(page))) return;
          after = last.position;
          failures = 0;
          if (page.length < this.batchSize) break;
        }
        if (this.closed) return;
        const { excludeSystemEvents, START } = kurrentdb();
        this.live = this.client.subscribeToAll({
          fromPosition: after === null ? START : { commit: after, prepare: after },
          filter: excludeSystemEvents(),
        });
        for await (const resolved of this.live) {
          if (this.closed) return;
          const event = toRecorded(resolved);
          if (!event || (after !== null && event.position <= after)) continue;
          // One event per batch: the live stream hands them over one at a time.
          if (!(await this.deliver([event]))) return;
          after = event.position;
          failures = 0;
        }
        if (this.closed) return;
        throw new Error('KurrentDB ended the subscription');
      } catch (err) {
        if (this.closed) return;
        failures += 1;
        if (failures >= this.backoff.maxAttempts) return this.fail(err);
        await this.sleep(backoffDelay(failures, this.backoff));
      } finally {
        await this.stopSource();
      }
    }
  }
}
