import type { Subscription } from '../port';

/** The live subscriptions of one store: closing the store closes them all, closing one forgets it. */
export class SubscriptionSet {
  private readonly live = new Set<Subscription>();

  track(subscription: Subscription): Subscription {
    this.live.add(subscription);
    return {
      close: async () => {
        this.live.delete(subscription);
        await subscription.close();
      },
    };
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.close()));
    this.live.clear();
  }
}
