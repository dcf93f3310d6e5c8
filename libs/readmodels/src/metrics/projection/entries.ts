import { entryStateAfter } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { asQueueEvent, targetOf } from '../../events/queue-event';
import type { LiveEntry, QueueMetricsDoc } from './model';

/**
 * Where a queue's live entries are kept while a fold reads and changes them: the document's own map
 * (memory), or a store's own structure that loads only the entries a batch names (Redis, D337). Each
 * event reads and writes at most the entry of the PR entryKeyOf names, so a store loads those alone.
 */
export interface LiveEntries {
  get(pr: string): LiveEntry | undefined;
  set(pr: string, entry: LiveEntry): void;
  delete(pr: string): void;
  /** Forgets them all: the queue was created again or deleted. */
  clear(): void;
}

/** The document's own `entries` map as LiveEntries. */
export const entriesInDoc = (doc: QueueMetricsDoc): LiveEntries => ({
  get: (pr) => doc.entries[pr],
  set: (pr, entry) => void (doc.entries[pr] = entry),
  delete: (pr) => void delete doc.entries[pr],
  clear: () => void (doc.entries = {}),
});

/** The key (PR number) of the live entry an event of a queue may read or change, if any. */
export const entryKeyOf = (event: RecordedEvent): string | undefined => {
  if (!targetOf(event)) return undefined;
  const moved = entryStateAfter(asQueueEvent(event));
  return moved ? String(moved.prNumber) : undefined;
};
