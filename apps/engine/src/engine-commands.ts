import { randomUUID } from 'node:crypto';
import { decideEngine, type EngineCommand } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import type { QueueLog } from '@railyard/queue-driver';
import { queueCommandHandler, type QueueWriter, type SavableQueueWriter } from '@railyard/runtime';

export const ENGINE_ACTOR = 'engine';

/** The engine's write side: the one queue writer every process uses, with the engine's decider. */
export const engineWriter = (store: EventStore, now: () => Date): SavableQueueWriter<EngineCommand> =>
  queueCommandHandler(store, decideEngine, now);

/** One queue's stream as the driver writes it, each command recorded as the engine's. */
export const engineLog = (writer: QueueWriter<EngineCommand>, streamId: string): QueueLog => ({
  read: () => writer.read(streamId),
  execute: async (command) => (await writer.execute(streamId, command, { actor: ENGINE_ACTOR, correlationId: randomUUID() })).events,
});
