import { queueStreamOf, QUEUE_EVENT_SCHEMA_VERSION, type QueueEvent } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';

/**
 * Hands out RecordedEvents with increasing global positions, as an event store would, so projection
 * tests need no store. Positions step by `gap` to keep tests honest about non-contiguous positions.
 */
export class RecordedEventFactory {
  private nextPosition: bigint;
  private readonly revisions = new Map<string, number>();

  constructor(
    firstPosition = 1n,
    private readonly gap = 1n,
  ) {
    this.nextPosition = firstPosition;
  }

  record(queueId: string, ...events: QueueEvent[]): RecordedEvent[] {
    const streamId = queueStreamOf(queueId);
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
        metadata: { schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, actor: 'test', correlationId: `c-${position}`, at: event.data.at },
        recordedAt: event.data.at,
      };
    });
  }
}
