import { entryStateAfter, QUEUE_STREAM_PREFIX, type QueueEvent } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';

// How every read model reads an event of a queue stream: the queue, PR and time it is about. The
// queue/PR view, metrics and test runs each fold these; none of them owns the reading.

/** The documents one event can touch: its queue, and the PR it is about (if any). */
export interface EventTarget {
  queueId: string;
  prNumber?: number;
}

// Events are trusted to be domain events when they come from a queue stream; types this code does not
// know yet (engine events) are still QueueEvent-shaped enough for entryStateAfter to judge.
export const asQueueEvent = (event: RecordedEvent): QueueEvent => ({ type: event.type, data: event.data }) as QueueEvent;

export const targetOf = (event: RecordedEvent): EventTarget | undefined => {
  if (!event.streamId.startsWith(QUEUE_STREAM_PREFIX)) return undefined;
  const queueId = event.streamId.slice(QUEUE_STREAM_PREFIX.length);
  const moved = entryStateAfter(asQueueEvent(event));
  const data = event.data as { prNumber?: unknown } | null;
  const prNumber = moved?.prNumber ?? (typeof data?.prNumber === 'number' ? data.prNumber : undefined);
  return prNumber === undefined ? { queueId } : { queueId, prNumber };
};

/** ISO time of the event: the domain puts it in `data.at`; the metadata carries it too. */
export const timeOf = (event: RecordedEvent): string => {
  const at = (event.data as { at?: unknown } | null)?.at;
  return typeof at === 'string' ? at : event.metadata.at;
};
