import { randomUUID } from 'node:crypto';
import {
  QUEUE_EVENT_SCHEMA_VERSION,
  evolve,
  initialQueueState,
  type DecideContext,
  type QueueEvent,
  type QueueState,
} from '@railyard/domain';
import { CommandHandler, type EventStore } from '@railyard/eventstore';

/**
 * The load → decide → append of a queue's stream with the domain's fold, for every process that
 * writes queue events: `decide` is the API's (`decide`) or the engine's (`decideEngine`, which the
 * API's GitHub webhooks use too), so a rule is decided once whoever records it.
 */
export const queueCommandHandler = <C>(
  store: EventStore,
  decide: (state: QueueState, command: C, ctx: DecideContext) => QueueEvent[],
  now: () => Date = () => new Date(),
): CommandHandler<QueueState, C, QueueEvent, DecideContext> => {
  const iso = () => now().toISOString();
  return new CommandHandler(
    store,
    { initialState: initialQueueState, evolve, decide },
    {
      context: (): DecideContext => ({ now: iso(), newId: () => randomUUID() }),
      newEventId: randomUUID,
      schemaVersion: QUEUE_EVENT_SCHEMA_VERSION,
      now: iso,
    },
  );
};
