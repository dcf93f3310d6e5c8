import type { RecordedEvent } from '@railyard/eventstore';
import { targetOf } from '../../queue/projection/target';
import type { QueueMetricsDoc } from './model';
import { foldMetricsEvent } from './project';

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
 * Folds a batch into loaded documents (null = no such queue) and returns the ids that changed.
 * Each document is copied once, on first touch, so what the caller loaded is never mutated; the
 * map's entries are replaced with the results.
 */
export const foldMetricsBatch = (docs: Map<string, QueueMetricsDoc | null>, events: readonly RecordedEvent[]): Set<string> => {
  const changed = new Set<string>();
  const owned = new Set<string>();
  for (const event of events) {
    const t = targetOf(event);
    if (!t) continue;
    let doc = docs.get(t.queueId) ?? null;
    if (doc && !owned.has(t.queueId)) doc = structuredClone(doc);
    const positionBefore = doc?.position;
    const after = foldMetricsEvent(doc, event);
    if (after !== doc || after?.position !== positionBefore) changed.add(t.queueId);
    if (after) owned.add(t.queueId);
    docs.set(t.queueId, after);
  }
  return changed;
};
