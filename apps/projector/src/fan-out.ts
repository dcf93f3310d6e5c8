import type { RecordedEvent } from '@railyard/eventstore';
import type { ProjectionTarget } from './run-projector';

/**
 * Several projections fed by one subscription: the log is read once for all of them (issue 29), at
 * start-up and after. Each target skips the events at or below its own checkpoint, so the shared
 * subscription starts from the lowest one and a batch read again after a failure applies nothing twice.
 * Every target gets each batch even when one before it fails, so one broken projection stalls the
 * others only for the retry's backoff; the first error is then rethrown for the projector to resubscribe.
 */
export const fanOut = (targets: readonly ProjectionTarget[]): ProjectionTarget => ({
  async apply(events: RecordedEvent[]): Promise<void> {
    const errors: unknown[] = [];
    for (const target of targets) await target.apply(events).catch((err: unknown) => errors.push(err));
    if (errors.length > 0) throw errors[0];
  },
  async checkpoint(): Promise<bigint | null> {
    let lowest: bigint | null = null;
    for (const target of targets) {
      const position = await target.checkpoint();
      if (position === null) return null;
      if (lowest === null || position < lowest) lowest = position;
    }
    return lowest;
  },
});
