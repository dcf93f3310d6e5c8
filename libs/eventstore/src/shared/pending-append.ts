import type { AppendResult, ExpectedRevision, NewEvent } from '../port';
import { assertAppendable } from './append-rules';
import { toJsonText } from './json-text';

/** An append waiting for the next group commit, its payloads already serialised. */
export interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  payloads: [string, string][];
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Checks an append and serialises its payloads before it joins a group commit: a bad append fails
 * alone and at once, and the slow part runs outside the write lock, needing no database state.
 */
export function preparePending(
  streamId: string,
  events: NewEvent[],
  expected: ExpectedRevision,
): Pick<PendingAppend, 'streamId' | 'events' | 'expected' | 'payloads'> {
  assertAppendable(streamId, events, expected);
  const payloads = events.map((e): [string, string] => [
    toJsonText(e.data, `data of event ${e.eventId}`),
    toJsonText(e.metadata, `metadata of event ${e.eventId}`),
  ]);
  return { streamId, events, expected, payloads };
}
