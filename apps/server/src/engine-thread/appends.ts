import {
  EventIdConflictError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
} from '@railyard/eventstore';

/** One append the engine thread asks the server's thread to make, on the server's connection. */
export interface AppendRequest {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
}

/** An append's outcome as it crosses between threads: the store's errors keep what callers branch on. */
export type AppendOutcome =
  | { ok: AppendResult }
  | { wrongRevision: { streamId: string; expected: ExpectedRevision; actual: number | 'no_stream' } }
  | { idConflict: { streamId: string; ids: readonly string[] } }
  | { failed: string };

/** Makes the append on this thread's store and says how it went, errors included. */
export const appendHere = async (store: EventStore, r: AppendRequest): Promise<AppendOutcome> => {
  try {
    return { ok: await store.append(r.streamId, r.events, r.expected) };
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError)
      return { wrongRevision: { streamId: err.streamId, expected: err.expected, actual: err.actual } };
    if (err instanceof EventIdConflictError) return { idConflict: { streamId: err.streamId, ids: err.conflictingIds } };
    return { failed: err instanceof Error ? err.message : String(err) };
  }
};

/** The outcome back as the store would have answered: the result, or its own error class. */
export const answerOf = (outcome: AppendOutcome): AppendResult => {
  if ('ok' in outcome) return outcome.ok;
  if ('wrongRevision' in outcome) {
    const { streamId, expected, actual } = outcome.wrongRevision;
    throw new WrongExpectedRevisionError(streamId, expected, actual);
  }
  if ('idConflict' in outcome) throw new EventIdConflictError(outcome.idConflict.streamId, outcome.idConflict.ids);
  throw new Error(outcome.failed);
};

/**
 * The engine thread's event store: reads and subscriptions on its own connection, appends made by the
 * server's thread (`appendThere`). SQLite takes one writer at a time, so a second writing connection
 * made each side wait on the other's lock and sync every engine event alone; through the server's
 * store the engine's events join its group commits (docs/decisions.md D46).
 */
export const withAppendsElsewhere = (store: EventStore, appendThere: (r: AppendRequest) => Promise<AppendOutcome>): EventStore => ({
  append: async (streamId, events, expected) => answerOf(await appendThere({ streamId, events, expected })),
  readStream: (streamId, fromRevision) => store.readStream(streamId, fromRevision),
  readAll: (fromPosition, maxCount) => store.readAll(fromPosition, maxCount),
  headPosition: () => store.headPosition(),
  subscribe: (options) => store.subscribe(options),
  close: () => store.close(),
});
