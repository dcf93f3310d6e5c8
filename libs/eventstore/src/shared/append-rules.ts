import { EventIdConflictError } from '../errors';
import type { AppendResult, ExpectedRevision, NewEvent } from '../port';
import { WrongExpectedRevisionError } from '../port';

/** Where an event id already lives, as far as the idempotency rule needs to know. */
export interface StoredEventRef {
  streamId: string;
  revision: number;
  position: bigint;
}

/** Rejects inputs no adapter can append, before any I/O, so every adapter fails the same way. */
export function assertAppendable(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): void {
  if (streamId.length === 0) throw new RangeError('stream id must not be empty');
  if (events.length === 0) throw new RangeError(`stream ${streamId}: append needs at least one event`);
  if (typeof expected === 'number' && !(Number.isSafeInteger(expected) && expected >= 0)) {
    throw new RangeError(`stream ${streamId}: expected revision must be a non-negative integer, got ${expected}`);
  }
  const seen = new Set<string>();
  for (const event of events) {
    if (event.eventId.length === 0) throw new RangeError(`stream ${streamId}: event id must not be empty`);
    if (seen.has(event.eventId)) throw new RangeError(`stream ${streamId}: event id ${event.eventId} appears twice in one append`);
    seen.add(event.eventId);
  }
}

/** Throws unless a stream whose last revision is `actual` satisfies `expected`. */
export function assertExpectedRevision(streamId: string, expected: ExpectedRevision, actual: number | 'no_stream'): void {
  if (expected === 'any' || expected === actual) return;
  throw new WrongExpectedRevisionError(streamId, expected, actual);
}

/**
 * Decides what an append whose ids are (partly) known means. `found[i]` is where `events[i]`'s id
 * is already stored, if anywhere. Returns null when every id is new; the original result when the
 * call repeats an earlier append exactly; throws EventIdConflictError otherwise.
 */
export function resolveRepeatedAppend(
  streamId: string,
  events: readonly NewEvent[],
  expected: ExpectedRevision,
  found: readonly (StoredEventRef | undefined)[],
): AppendResult | null {
  if (found.every((ref) => ref === undefined)) return null;
  const first = found[0];
  const start = expected === 'no_stream' ? 0 : expected === 'any' ? (first?.revision ?? -1) : expected + 1;
  const repeats = found.every((ref, i) => ref !== undefined && ref.streamId === streamId && ref.revision === start + i);
  const last = found[found.length - 1];
  if (repeats && last) return { nextRevision: last.revision, position: last.position };
  const known = events.filter((_, i) => found[i] !== undefined).map((e) => e.eventId);
  throw new EventIdConflictError(streamId, known);
}
