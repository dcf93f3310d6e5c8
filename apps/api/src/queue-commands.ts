import { decide, type QueueCommand, type QueueEvent, type QueueState } from '@railyard/domain';
import type { CommandMeta, EventStore, HandlerResult } from '@railyard/eventstore';
import type { ReadModelStore } from '@railyard/readmodels';
import type { Logger } from '@railyard/observability';
import { queueCommandHandler, type QueueAddress, type QueueWriter } from '@railyard/runtime';

export interface Clock {
  now: () => Date;
}

/**
 * The write side of the queue API: the one queue writer (libs/runtime), answered only once the read
 * models caught up with each write (bounded), so a client that writes and then reads sees its write.
 */
export class QueueCommands implements QueueWriter<QueueCommand> {
  private readonly handler: QueueWriter<QueueCommand>;

  constructor(
    store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly logger: Logger,
    private readonly options: {
      clock: Clock;
      readYourWritesTimeoutMs?: number;
      /** Runs before anything is stored and throws to refuse the write (readiness/projection-health.ts). */
      gate?: () => Promise<void>;
    },
  ) {
    // The one set-up every writer of queue events shares (docs/decisions.md D149).
    this.handler = queueCommandHandler(store, decide, () => options.clock.now());
  }

  async execute(queue: QueueAddress, command: QueueCommand, meta: CommandMeta): Promise<HandlerResult<QueueState, QueueEvent>> {
    await this.ensureWritable();
    const result = await this.handler.execute(queue, command, meta);
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

  read(queue: QueueAddress): Promise<QueueState> {
    return this.handler.read(queue);
  }
}
