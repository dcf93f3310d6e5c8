import { EntryMap } from './entry-order';
import type { Entry, QueueState } from './state';

/**
 * What a saved queue state holds and how `evolve` folded it (the engine's snapshots, docs/decisions.md
 * D292). Raise it whenever `QueueState`'s fields or `evolve`'s result for the same events change: a
 * state saved before is then folded again from its stream instead of being read as something it is
 * not. state-snapshot.test.ts pins a fold's result to this number, so a change that forgets it fails.
 */
export const QUEUE_STATE_SCHEMA = 7;

/** The state as structured-clone data: `entries` as a plain Map (its plan order is rebuilt on the way back). */
export type QueueStateBody = Omit<QueueState, 'entries'> & { entries: Map<number, Entry> };

/** A copy-ready view of the state: the same objects, with the entries in a plain Map. */
export const queueStateBody = (s: QueueState): QueueStateBody => ({ ...s, entries: new Map(s.entries) });

/** The state a body was made from: its entries filed into the plan order again, in their first order. */
export const queueStateOf = (body: QueueStateBody): QueueState => {
  const entries = new EntryMap();
  for (const [prNumber, e] of body.entries) entries.set(prNumber, e);
  return { ...body, entries };
};
