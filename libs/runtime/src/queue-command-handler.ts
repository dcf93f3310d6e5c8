import { randomUUID } from 'node:crypto';
import {
  QUEUE_EVENT_SCHEMA_VERSION,
  evolve,
  initialQueueState,
  queueIdOf,
  queueStreamOf,
  type DecideContext,
  type QueueEvent,
  type QueueState,
  type RepoRef,
} from '@railyard/domain';
import { CommandHandler, type CommandMeta, type EventStore, type HandlerResult, type SavedStream } from '@railyard/eventstore';

/** A queue by its repository and branch, or by its stream's id (the engine knows its queues by stream). */
export type QueueAddress = string | { repo: RepoRef; branch: string };

const streamOf = (q: QueueAddress): string => (typeof q === 'string' ? q : queueStreamOf(queueIdOf(q.repo, q.branch)));

/** The one way anything writes a queue's stream: the API, the engine and GitHub's webhooks alike. */
export interface QueueWriter<C> {
  execute(queue: QueueAddress, command: C, meta: CommandMeta): Promise<HandlerResult<QueueState, QueueEvent>>;
  read(queue: QueueAddress): Promise<QueueState>;
}

/** A queue writer whose folded states can be saved and taken back (the engine's snapshots, docs/decisions.md D292). */
export interface SavableQueueWriter<C> extends QueueWriter<C> {
  /** Copies of the folded states that changed since `since`, for a snapshot (CommandHandler.saved). */
  saved<B>(since: number, copy: (state: QueueState) => B): { version: number; streams: SavedStream<B>[] };
  /** Takes a saved state back; the log confirms it before it is used (CommandHandler.resume). */
  resume(saved: Omit<SavedStream<QueueState>, 'body'> & { state: QueueState }): void;
}

/**
 * What a queue's folded state costs to keep in the cache, in entries and runs (its closed books, D250,
 * bound the ended ones): an idle queue weighs about 1, so thousands of them stay folded (D321).
 */
export const queueStateWeight = (s: QueueState): number => 1 + s.entries.size + s.closed.size + s.runs.size;
/** About 250,000 entries and runs, some hundreds of MB at most; 5,000 idle queues use a few percent of it. */
export const QUEUE_CACHE_WEIGHT = 250_000;

/**
 * The load → decide → append of a queue's stream with the domain's fold, for every process that
 * writes queue events: `decide` is the API's (`decide`) or the engine's (`decideEngine`, which the
 * API's GitHub webhooks use too), so a rule is decided once whoever records it.
 */
export const queueCommandHandler = <C>(
  store: EventStore,
  decide: (state: QueueState, command: C, ctx: DecideContext) => QueueEvent[],
  now: () => Date = () => new Date(),
): SavableQueueWriter<C> => {
  const iso = () => now().toISOString();
  const handler = new CommandHandler<QueueState, C, QueueEvent, DecideContext>(
    store,
    { initialState: initialQueueState, evolve, decide },
    {
      context: (): DecideContext => ({ now: iso(), newId: () => randomUUID() }),
      newEventId: randomUUID,
      schemaVersion: QUEUE_EVENT_SCHEMA_VERSION,
      now: iso,
      weigh: queueStateWeight,
      maxCachedWeight: QUEUE_CACHE_WEIGHT,
    },
  );
  return {
    execute: (queue, command, meta) => handler.execute(streamOf(queue), command, meta),
    read: (queue) => handler.read(streamOf(queue)),
    saved: (since, copy) => handler.saved(since, copy),
    resume: (saved) => handler.resume(saved),
  };
};
