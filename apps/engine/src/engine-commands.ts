import { randomUUID } from 'node:crypto';
import { decideEngine, type DecideContext, type EngineCommand, type QueueEvent, type QueueState } from '@railyard/domain';
import type { CommandHandler, EventStore, HandlerResult } from '@railyard/eventstore';
import { queueCommandHandler } from '@railyard/runtime';
import type { QueueLog } from '@railyard/queue-driver';

export const ENGINE_ACTOR = 'engine';

/** The engine's write side: its commands on the queue streams, through the same load → decide → append as the API's. */
export class EngineCommands {
  private readonly handler: CommandHandler<QueueState, EngineCommand, QueueEvent, DecideContext>;

  constructor(store: EventStore, now: () => Date) {
    this.handler = queueCommandHandler(store, decideEngine, now);
  }

  execute(streamId: string, command: EngineCommand, correlationId: string): Promise<HandlerResult<QueueState, QueueEvent>> {
    return this.handler.execute(streamId, command, { actor: ENGINE_ACTOR, correlationId });
  }

  read(streamId: string): Promise<QueueState> {
    return this.handler.read(streamId);
  }

  /** One queue's stream as the driver writes it. */
  logOf(streamId: string): QueueLog {
    return {
      read: () => this.read(streamId),
      execute: async (command) => (await this.execute(streamId, command, randomUUID())).events,
    };
  }
}
