import { randomUUID } from 'node:crypto';
import {
  QUEUE_EVENT_SCHEMA_VERSION,
  decideEngine,
  evolve,
  initialQueueState,
  queueIdOf,
  queueStreamOf,
  type DecideContext,
  type EngineCommand,
  type QueueEvent,
  type QueueState,
  type RepoRef,
} from '@railyard/domain';
import { CommandHandler, type EventStore } from '@railyard/eventstore';

/** The actor of what GitHub's webhooks record (the engine plans again on events of any actor but its own). */
export const GITHUB_ACTOR = 'github';

/**
 * Host changes GitHub announces, recorded as the engine records them when it finds them itself (the
 * engine's `CancelForHostChange`, decided by the same `decideEngine`), so a push or a close takes the
 * PR out of the queue as soon as the webhook arrives rather than at the engine's next read.
 */
export class HostChangeCommands {
  private readonly handler: CommandHandler<QueueState, EngineCommand, QueueEvent, DecideContext>;

  constructor(store: EventStore, now: () => Date) {
    const iso = () => now().toISOString();
    this.handler = new CommandHandler(
      store,
      { initialState: initialQueueState, evolve, decide: decideEngine },
      {
        context: (): DecideContext => ({ now: iso(), newId: randomUUID }),
        newEventId: randomUUID,
        schemaVersion: QUEUE_EVENT_SCHEMA_VERSION,
        now: iso,
      },
    );
  }

  state(repo: RepoRef, branch: string): Promise<QueueState> {
    return this.handler.read(queueStreamOf(queueIdOf(repo, branch)));
  }

  async execute(repo: RepoRef, branch: string, command: EngineCommand, correlationId: string): Promise<QueueEvent[]> {
    const result = await this.handler.execute(queueStreamOf(queueIdOf(repo, branch)), command, { actor: GITHUB_ACTOR, correlationId });
    return result.events;
  }
}
