import { queueStreamOf, QUEUE_EVENT_SCHEMA_VERSION, type QueueEvent } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';

/** What a recorder needs of an event: its type and data with the time it happened. */
export interface EventAt {
  type: string;
  data: { at: string };
}

/**
 * Hands out RecordedEvents with increasing global positions and per-stream revisions, as an event
 * store would, so projection tests need no store. Positions step by `gap` to keep tests honest about
 * non-contiguous positions.
 */
export class StreamRecorder {
  private nextPosition: bigint;
  private readonly revisions = new Map<string, number>();

  constructor(
    private readonly schemaVersion: number,
    private readonly actor: string,
    firstPosition = 1n,
    private readonly gap = 1n,
  ) {
    this.nextPosition = firstPosition;
  }

  recordOn(streamId: string, ...events: EventAt[]): RecordedEvent[] {
    return events.map((event) => {
      const revision = (this.revisions.get(streamId) ?? -1) + 1;
      this.revisions.set(streamId, revision);
      const position = this.nextPosition;
      this.nextPosition += this.gap;
      return {
        streamId,
        revision,
        position,
        eventId: `${streamId}@${revision}`,
        type: event.type,
        data: event.data,
        metadata: { schemaVersion: this.schemaVersion, actor: this.actor, correlationId: `c-${position}`, at: event.data.at },
        recordedAt: event.data.at,
      };
    });
  }
}

/** Recorded queue events, as the queue streams hold them. */
export class RecordedEventFactory extends StreamRecorder {
  constructor(firstPosition = 1n, gap = 1n) {
    super(QUEUE_EVENT_SCHEMA_VERSION, 'test', firstPosition, gap);
  }

  record(queueId: string, ...events: QueueEvent[]): RecordedEvent[] {
    return this.recordOn(queueStreamOf(queueId), ...events);
  }
}
