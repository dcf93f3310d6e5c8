import { RedisBlobStore, type BlobStore } from '@railyard/eventstore';
import { RedisMetricsStore } from './metrics';
import { RedisReadModelStore } from './queue/redis/store';
import { RedisTestHealthStore } from './testhealth';
import type Redis from 'ioredis';

/**
 * Every Redis projection of one namespace: the queue and PR views, metrics, test health. The live
 * projector keeps them all under its lease, and `railyard projections rebuild` rebuilds them all.
 */
export const openRedisProjections = (
  redis: Redis,
  namespace: string,
  limits: { maxRunsPerTest: number; retentionDays: number },
  blobs?: BlobStore,
) => {
  const readModels = new RedisReadModelStore({ redis, namespace });
  const metrics = new RedisMetricsStore({ redis, namespace });
  // Upload case lists live in the API's blob store: the projection reads them by digest. Processes pass the
  // store their configuration names (libs/runtime's blobStoreConfigOf); without one, Redis of this namespace.
  const testHealth = new RedisTestHealthStore({
    redis,
    namespace,
    blobs: blobs ?? new RedisBlobStore({ client: redis, prefix: `ry:{${namespace}}:blob:` }),
    ...limits,
  });
  return { readModels, metrics, testHealth, all: { readmodels: readModels, metrics, testhealth: testHealth } };
};
