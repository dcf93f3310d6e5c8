import type { EventStore, Subscription } from '@railyard/eventstore';
import { hintsOfRecorded } from './delivery-log';
import type { GithubHostHint } from './webhook-digest';

export type HintListener = (hint: GithubHostHint) => void;

/**
 * The host hints of recorded webhook deliveries, as they are appended, for the process that drives
 * the queues (the engine's GitHub host hands them to its `watch` listeners). Webhooks reach whichever
 * API replica GitHub calls; the event store carries their hints to the engine wherever it runs.
 * Hints from before the feed started are not replayed: an engine's first pass over a queue re-reads
 * every fact anyway.
 */
export class GithubHintFeed {
  private readonly listeners = new Set<HintListener>();

  private constructor(private readonly subscription: Subscription) {}

  static async start(store: EventStore, onError?: (err: Error) => void): Promise<GithubHintFeed> {
    const from = await store.headPosition();
    const holder: { feed?: GithubHintFeed } = {};
    const subscription = store.subscribe({
      fromPosition: from,
      onEvents: async (events) => {
        for (const e of events) for (const hint of hintsOfRecorded(e)) holder.feed?.emit(hint);
      },
      ...(onError ? { onError } : {}),
    });
    holder.feed = new GithubHintFeed(subscription);
    return holder.feed;
  }

  listen(listener: HintListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(hint: GithubHostHint): void {
    for (const l of this.listeners) l(hint);
  }

  close(): Promise<void> {
    this.listeners.clear();
    return this.subscription.close();
  }
}
