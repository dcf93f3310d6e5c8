import {
  decideEngine,
  queueIdOf,
  queueStreamOf,
  type EngineCommand,
  type QueueEvent,
  type QueueState,
  type RepoRef,
} from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import { queueCommandHandler } from '@railyard/runtime';

/** The actor of what GitHub's webhooks record (the engine plans again on events of any actor but its own). */
export const GITHUB_ACTOR = 'github';

/**
 * Host changes GitHub announces, recorded as the engine records them when it finds them itself (the
 * engine's `CancelForHostChange`, decided by the same `decideEngine`), so a push or a close takes the
 * PR out of the queue as soon as the webhook arrives rather than at the engine's next read.
 */
export class HostChangeCommands {
  private readonly handler: ReturnType<typeof queueCommandHandler<EngineCommand>>;

  constructor(store: EventStore, now: () => Date) {
    this.handler = queueCommandHandler(store, decideEngine, now);
  }

  state(repo: RepoRef, branch: string): Promise<QueueState> {
    return this.handler.read(queueStreamOf(queueIdOf(repo, branch)));
  }

  async execute(repo: RepoRef, branch: string, command: EngineCommand, correlationId: string): Promise<QueueEvent[]> {
    const result = await this.handler.execute(queueStreamOf(queueIdOf(repo, branch)), command, { actor: GITHUB_ACTOR, correlationId });
    return result.events;
  }
}
