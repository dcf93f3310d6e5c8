import { redisKeys } from '../../redis/keys';

/**
 * Metrics keys live beside the other read models of a namespace (same hash tag, so one script can
 * write a batch and the checkpoint), under their own `m:` prefix: the queue-view reset and the
 * metrics reset never touch each other's keys.
 */
export interface MetricsRedisKeys {
  /** STRING: position of the last applied event, zero-padded (or the reset marker). */
  checkpoint: string;
  /** STRING: JSON QueueMetricsDoc. */
  queue(queueId: string): string;
  /** ZSET (score 0): ids of the queues that have a document. */
  index: string;
  modelPattern: string;
}

export const metricsRedisKeys = (namespace: string): MetricsRedisKeys => {
  // Validates the namespace the same way as the queue views do.
  redisKeys(namespace);
  const base = `ry:{${namespace}}:m:`;
  return {
    checkpoint: `${base}checkpoint`,
    queue: (queueId) => `${base}q:${queueId}`,
    index: `${base}queues`,
    modelPattern: `${base}q:*`,
  };
};
