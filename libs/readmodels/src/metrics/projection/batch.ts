import type { RecordedEvent } from '@railyard/eventstore';
import { targetOf } from '../../events/queue-event';
import type { QueueMetricsDoc } from './model';
import { foldMetricsEvent, type KeptApart } from './project';

/** The queues a batch touches, so an adapter loads exactly those documents. */
export const metricsQueuesOf = (events: readonly RecordedEvent[]): Set<string> => {
  const ids = new Set<string>();
  for (const event of events) {
    const t = targetOf(event);
    if (t) ids.add(t.queueId);
  }
  return ids;
};

/**
 * Folds a batch into documents the caller owns (null = no such queue), mutating them, and returns the
 * ids that changed; the map's entries are replaced with the results. A busy queue's document holds
 * every live entry and an hour of log, so copying it per batch cost more than the API request that
 * made the event (docs/decisions.md D121): adapters whose documents are their own (freshly parsed, or
 * the memory store's) fold in place. If it throws, the documents may hold half an event. `apart`
 * keeps failed PRs and live entries outside the documents (the Redis store's, D312 and D337).
 */
export const foldMetricsBatchInPlace = (
  docs: Map<string, QueueMetricsDoc | null>,
  events: readonly RecordedEvent[],
  apart?: KeptApart,
): Set<string> => {
  const changed = new Set<string>();
  for (const event of events) {
    const t = targetOf(event);
    if (!t) continue;
    const doc = docs.get(t.queueId) ?? null;
    const positionBefore = doc?.position;
    const after = foldMetricsEvent(doc, event, apart);
    if (after !== doc || after?.position !== positionBefore) changed.add(t.queueId);
    docs.set(t.queueId, after);
  }
  return changed;
};

/**
 * As foldMetricsBatchInPlace, on copies: each document is copied once, on first touch, so what the
 * caller loaded is never mutated (the pure fold the contract tests compare the adapters with).
 */
export const foldMetricsBatch = (docs: Map<string, QueueMetricsDoc | null>, events: readonly RecordedEvent[]): Set<string> => {
  const owned = new Map<string, QueueMetricsDoc | null>();
  for (const id of metricsQueuesOf(events)) {
    const doc = docs.get(id) ?? null;
    owned.set(id, doc && structuredClone(doc));
  }
  const changed = foldMetricsBatchInPlace(owned, events);
  for (const [id, doc] of owned) docs.set(id, doc);
  return changed;
};
