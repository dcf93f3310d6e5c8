import { decideEngine, type EngineCommand } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import { queueCommandHandler, type QueueWriter } from '@railyard/runtime';

/** The actor of what GitHub's webhooks record (the engine plans again on events of any actor but its own). */
export const GITHUB_ACTOR = 'github';

/**
 * Host changes GitHub announces are recorded as the engine records them when it finds them itself
 * (the engine's `CancelForHostChange`, decided by the same `decideEngine`), so a push or a close takes
 * the PR out of the queue as soon as the webhook arrives rather than at the engine's next read.
 */
export const hostChangeWriter = (store: EventStore, now: () => Date): QueueWriter<EngineCommand> =>
  queueCommandHandler(store, decideEngine, now);
