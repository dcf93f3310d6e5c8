import { redisKeys } from '../../redis/keys';

/**
 * Metrics keys live beside the other read models of a namespace (same hash tag, so one script can
 * write a batch and the checkpoint), under their own `m:` prefix: the queue-view reset and the
 * metrics reset never touch each other's keys.
 */
export interface MetricsRedisKeys {
  /** STRING: position of the last applied event, zero-padded (or the reset marker). */
  checkpoint: string;
  /** STRING: JSON QueueMetricsDoc without `failed` (from format 2 on, D312) nor `entries` (from 3 on, D337). */
  queue(queueId: string): string;
  /** HASH: field PR number, value JSON LiveEntry; the queue's live entries (D337). */
  entries(queueId: string): string;
  /** HASH: field PR number, value JSON FailedPr; the queue's failed PRs. */
  failed(queueId: string): string;
  /** ZSET: member PR number, score the failure's epoch ms; the same PRs by time, so old ones are trimmed by range. */
  failedAt(queueId: string): string;
  /** STRING: the stored format (METRICS_REDIS_FORMAT); a model without it, or with another, is rebuilt. */
  format: string;
  /** ZSET (score 0): ids of the queues that have a document. */
  index: string;
  modelPattern: string;
}

/**
 * How the model is stored: 1 (unnamed) kept `failed` inside each queue's document, 2 keeps it in a hash
 * and a sorted set per queue (D312), 3 keeps `entries` in a hash per queue too (D337). Raised with any
 * change to the stored shape or to the fold.
 */
export const METRICS_REDIS_FORMAT = '3';

export const metricsRedisKeys = (namespace: string): MetricsRedisKeys => {
  // Validates the namespace the same way as the queue views do.
  redisKeys(namespace);
  const base = `ry:{${namespace}}:m:`;
  return {
    checkpoint: `${base}checkpoint`,
    queue: (queueId) => `${base}q:${queueId}`,
    entries: (queueId) => `${base}q:${queueId}:entries`,
    failed: (queueId) => `${base}q:${queueId}:failed`,
    failedAt: (queueId) => `${base}q:${queueId}:failedat`,
    format: `${base}format`,
    index: `${base}queues`,
    modelPattern: `${base}q:*`,
  };
};
