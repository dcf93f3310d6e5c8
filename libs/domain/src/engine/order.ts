import { planOrderIndexOf } from '../entry-order';
import type { Entry, QueueState } from '../state';

/**
 * The order the planner walks: entries that started testing keep the places they took (restarts
 * included), then the waiting ones by priority and submission. A later high-priority PR therefore
 * goes ahead of every PR that has not started, and never interrupts one that has (reference trunk §3).
 * Entries that are not ready take no place at all. Kept by the state's entries as they change
 * (entry-order.ts), so this is a copy, not a sort.
 */
export const planOrder = (s: QueueState): Entry[] => {
  const index = planOrderIndexOf(s.entries);
  return [...index.started, ...index.waiting];
};
