import { activeEntries, byQueueOrder, type Entry, type QueueState } from '../state';

/**
 * The order the planner walks: entries that started testing keep the places they took (restarts
 * included), then the waiting ones by priority and submission. A later high-priority PR therefore
 * goes ahead of every PR that has not started, and never interrupts one that has (reference trunk §3).
 * Entries that are not ready take no place at all.
 */
export const planOrder = (s: QueueState): Entry[] => {
  const active = activeEntries(s).filter((e) => e.state !== 'not_ready');
  const started = active.filter((e) => e.flightSeq !== undefined).sort((a, b) => (a.flightSeq ?? 0) - (b.flightSeq ?? 0));
  const waiting = active.filter((e) => e.flightSeq === undefined).sort(byQueueOrder);
  return [...started, ...waiting];
};
