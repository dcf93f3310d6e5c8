import type { EventStore } from '@railyard/eventstore';
import type { RecordedEvent } from '@railyard/eventstore';

/** What a rebuild needs of a projection: forget everything, then fold events in. */
export interface RebuildTarget {
  reset(): Promise<void>;
  apply(events: RecordedEvent[]): Promise<void>;
}

export interface RebuildOptions {
  eventStore: EventStore;
  readModels: RebuildTarget;
  batchSize?: number;
}

export interface RebuildResult {
  events: number;
  seconds: number;
}

/**
 * Larger than the live projector's batches: a rebuild has no reader waiting on any one event, and each
 * batch costs the same round trips whatever its size, while a PR touched several times in a batch is
 * loaded and written once. Measured on 1,000,000 events into Redis: see docs/benchmarks.md.
 */
const REBUILD_BATCH_SIZE = 2000;

/**
 * Forgets the read models and folds the whole log into them again. The next page is read while the
 * current one is applied, so the store and the read models work in parallel. Run it only where no
 * live projector writes the same read models (hold the projector lease).
 */
export const rebuildProjections = async ({
  eventStore,
  readModels,
  batchSize = REBUILD_BATCH_SIZE,
}: RebuildOptions): Promise<RebuildResult> => {
  const started = process.hrtime.bigint();
  await readModels.reset();
  let events = 0;
  let page = await eventStore.readAll(null, batchSize);
  while (page.length > 0) {
    const last = page[page.length - 1];
    const next = last ? eventStore.readAll(last.position, batchSize) : Promise.resolve([]);
    // Without this the read-ahead would be an unhandled rejection if applying the page throws first.
    next.catch(() => undefined);
    await readModels.apply(page);
    events += page.length;
    page = await next;
  }
  return { events, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
};
