import type { RecordedEvent } from '@railyard/eventstore';
import type { PrDoc, QueueDoc } from './docs';
import { projectEvent } from './project';
import { targetOf } from '../../events/queue-event';

/** Map key of a PR document; the adapters turn it into their own storage key. */
export const prKeyOf = (queueId: string, prNumber: number): string => `${queueId}\u0000${prNumber}`;

export interface PrRef {
  queueId: string;
  prNumber: number;
}

/** The documents a batch needs loaded before it can be folded. */
export interface BatchTargets {
  queueIds: Set<string>;
  prs: Map<string, PrRef>;
}

export const targetsOfBatch = (events: readonly RecordedEvent[]): BatchTargets => {
  const queueIds = new Set<string>();
  const prs = new Map<string, PrRef>();
  for (const event of events) {
    const t = targetOf(event);
    if (!t) continue;
    queueIds.add(t.queueId);
    if (t.prNumber !== undefined) prs.set(prKeyOf(t.queueId, t.prNumber), { queueId: t.queueId, prNumber: t.prNumber });
  }
  return { queueIds, prs };
};

/** Loaded documents, absent ones as null. foldBatch replaces entries in place. */
export interface DocSet {
  queues: Map<string, QueueDoc | null>;
  prs: Map<string, PrDoc | null>;
}

export interface BatchChanges {
  queueIds: Set<string>;
  prKeys: Set<string>;
  /** Queues created or deleted in the batch: their set of active PRs starts over. */
  regenerated: Set<string>;
}

/**
 * Folds the events, in order, into the documents (which must hold every target of the batch) and
 * says which ones changed, so an adapter writes back only those.
 */
export const foldBatch = (docs: DocSet, events: readonly RecordedEvent[]): BatchChanges => {
  const changes: BatchChanges = { queueIds: new Set(), prKeys: new Set(), regenerated: new Set() };
  for (const event of events) {
    const t = targetOf(event);
    if (!t) continue;
    const prKey = t.prNumber === undefined ? undefined : prKeyOf(t.queueId, t.prNumber);
    const before = { queue: docs.queues.get(t.queueId) ?? null, pr: prKey ? (docs.prs.get(prKey) ?? null) : null };
    const after = projectEvent(before, event);
    if (after.queue !== before.queue) {
      docs.queues.set(t.queueId, after.queue);
      changes.queueIds.add(t.queueId);
      if (before.queue?.generation !== after.queue?.generation || !after.queue?.view) changes.regenerated.add(t.queueId);
    }
    if (prKey && after.pr !== before.pr) {
      docs.prs.set(prKey, after.pr);
      changes.prKeys.add(prKey);
    }
  }
  return changes;
};
