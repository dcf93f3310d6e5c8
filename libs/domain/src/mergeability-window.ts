import type { QueueSettings } from './config';
import { batchSizeBounds } from './engine/batch-size';
import { activeEntries, byQueueOrder, type Entry, type QueueState } from './state';

/** The fewest PRs whose mergeability is worked out eagerly, whatever the queue's settings. */
export const MERGEABILITY_WINDOW_MIN = 8;

type WindowSettings = Pick<QueueSettings, 'concurrency' | 'batch' | 'batchingMinSize' | 'batchingMaxSize'>;

/**
 * How many active PRs, counted from the front of the queue in queue order, have their mergeability
 * worked out as soon as they are submitted (docs/decisions.md D38): twice what the planner can start
 * at once (concurrency runs of one PR, or of the largest batch the settings allow when batching), so the next
 * wave is ready when the current one lands. The rest are asked at the engine's background rate.
 * Parallel mode uses the same window over queue order, not one per lane.
 */
export const mergeabilityWindowSize = (settings: WindowSettings): number =>
  Math.max(MERGEABILITY_WINDOW_MIN, 2 * settings.concurrency * (settings.batch ? batchSizeBounds(settings).max : 1));

/** Whether a PR with `activeAhead` active PRs ahead of it in queue order is inside the window. */
export const inMergeabilityWindow = (activeAhead: number, settings: WindowSettings): boolean =>
  activeAhead < mergeabilityWindowSize(settings);

/**
 * The PR numbers inside the window: the first `mergeabilityWindowSize` active entries in queue order.
 * A selection of the first few rather than a sort, since a pass runs this over queues of thousands.
 */
export const mergeabilityWindow = (s: QueueState): Set<number> => {
  const size = mergeabilityWindowSize(s.settings);
  const first: Entry[] = [];
  for (const e of activeEntries(s)) {
    if (first.length === size && byQueueOrder(e, first[size - 1] as Entry) >= 0) continue;
    let i = first.length;
    while (i > 0 && byQueueOrder(e, first[i - 1] as Entry) < 0) i--;
    first.splice(i, 0, e);
    if (first.length > size) first.pop();
  }
  return new Set(first.map((e) => e.prNumber));
};
