import type { AllStreamResolvedEvent, EventData, JSONType, ResolvedEvent } from '@kurrent/kurrentdb-client';
import type { EventMetadata, NewEvent, RecordedEvent } from '../port';
import { toJsonText } from '../shared/json-text';
import { kurrentdb } from './client';

/** KurrentDB stores event ids as UUIDs and refuses anything else. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function toEventData(event: NewEvent): EventData {
  if (!UUID.test(event.eventId)) {
    throw new RangeError(`KurrentDB needs lower-case UUID event ids, got ${event.eventId}`);
  }
  // The client would serialise a bad payload into something else; refuse it as the other adapters do.
  toJsonText(event.data, `data of event ${event.eventId}`);
  toJsonText(event.metadata, `metadata of event ${event.eventId}`);
  return kurrentdb().jsonEvent({
    id: event.eventId,
    type: event.type,
    data: event.data as JSONType,
    metadata: event.metadata as unknown as JSONType,
  });
}

/** The client is typed bigint but has returned numbers at runtime (issues #423, #513). */
export function toBigInt(value: bigint | number | string): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

/**
 * Our shape of a server event, or null for a link or an event without a body. A stream read from a
 * server that does not report positions there yields position -1.
 */
export function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event) return null;
  const commit = event.position?.commit ?? resolved.commitPosition;
  return {
    streamId: event.streamId,
    revision: Number(event.revision),
    position: commit === undefined ? -1n : toBigInt(commit),
    eventId: event.id,
    type: event.type,
    data: event.isJson ? event.data : decodeJson(event.data),
    metadata: (event.metadata instanceof Uint8Array ? decodeJson(event.metadata) : event.metadata) as EventMetadata,
    recordedAt: event.created.toISOString(),
  };
}

/** Events written by other tools may be stored as bytes; JSON bytes are still read as JSON. */
function decodeJson(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return bytes;
  }
}
