import { randomUUID } from 'node:crypto';
import {
  QUEUE_EVENT_SCHEMA_VERSION,
  decide,
  evolve,
  initialQueueState,
  queueIdOf,
  queueStreamOf,
  type DecideContext,
  type QueueCommand,
  type QueueEvent,
  type QueueState,
  type RepoRef,
} from '@railyard/domain';
import { CommandHandler, type CommandMeta, type EventStore, type HandlerResult } from '@railyard/eventstore';
import type { ReadModelStore } from '@railyard/readmodels';
import type { Logger } from '@railyard/observability';

export interface Clock {
  now: () => Date;
}

/**
 * The write side of the queue API: commands on a queue's stream, answered only once the read models
 * caught up with them (bounded), so a client that writes and then reads sees its write.
 */
export class QueueCommands {
  private readonly handler: CommandHandler<QueueState, QueueCommand, QueueEvent, DecideContext>;

  constructor(
    store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly logger: Logger,
    private readonly options: {
      clock: Clock;
      newId?: () => string;
      readYourWritesTimeoutMs?: number;
      /** Runs before anything is stored and throws to refuse the write (readiness/projection-health.ts). */
      gate?: () => Promise<void>;
    },
  ) {
    const newId = options.newId ?? randomUUID;
    const now = () => options.clock.now().toISOString();
    this.handler = new CommandHandler(
      store,
      { initialState: initialQueueState, evolve, decide },
      { context: () => ({ now: now(), newId }), newEventId: randomUUID, schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, now },
    );
  }

  async execute(repo: RepoRef, branch: string, command: QueueCommand, meta: CommandMeta): Promise<HandlerResult<QueueState, QueueEvent>> {
    await this.ensureWritable();
    const result = await this.handler.execute(queueStreamOf(queueIdOf(repo, branch)), command, meta);
    if (result.position !== null) {
      const timeoutMs = this.options.readYourWritesTimeoutMs ?? 5000;
      const reached = await this.readModels.waitFor(result.position, timeoutMs);
      if (!reached) this.logger.warn('read models did not reach a write in time', { position: String(result.position), timeoutMs });
    }
    return result;
  }

  /** Throws (503) when a write could not be answered within the read-your-writes bound; routes call it before slow checks too. */
  async ensureWritable(): Promise<void> {
    await this.options.gate?.();
  }

  state(repo: RepoRef, branch: string): Promise<QueueState> {
    return this.handler.read(queueStreamOf(queueIdOf(repo, branch)));
  }
}
