import { entryStateAfter } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { asQueueEvent, targetOf } from '../../events/queue-event';
import { fieldsInDoc, type KeptFields } from './kept-fields';
import type { LiveEntry, QueueMetricsDoc } from './model';

/**
 * Where a queue's live entries are kept while a fold reads and changes them (kept-fields.ts). Each
 * event reads and writes at most the entry of the PR entryKeyOf names, so a store loads those alone.
 */
export type LiveEntries = KeptFields<LiveEntry>;

/** The document's own `entries` map as LiveEntries. */
export const entriesInDoc = (doc: QueueMetricsDoc): LiveEntries =>
  fieldsInDoc(
    () => doc.entries,
    () => void (doc.entries = {}),
  );

/** The key (PR number) of the live entry an event of a queue may read or change, if any. */
export const entryKeyOf = (event: RecordedEvent): string | undefined => {
  if (!targetOf(event)) return undefined;
  const moved = entryStateAfter(asQueueEvent(event));
  return moved ? String(moved.prNumber) : undefined;
};
