import path from 'node:path';
import { createBlobStore, createEventStore, type BlobStore, type EventStore } from '@railyard/eventstore';
import { LocalGitHost } from '@railyard/githost';
import { MemoryReadModelStore, RedisReadModelStore, type ReadModelStore } from '@railyard/readmodels';
import type { RuntimeConfig } from './config';

export const openEventStore = (config: RuntimeConfig): Promise<EventStore> => createEventStore(config.eventStore);

/** Blobs live beside the events: on disk for the embedded shape, in Redis when processes share nothing else. */
export const openBlobStore = (config: RuntimeConfig): Promise<BlobStore> =>
  config.redisUrl
    ? createBlobStore({ kind: 'redis', url: config.redisUrl, prefix: `ry:{${config.redisNamespace}}:blob:` })
    : createBlobStore({ kind: 'fs', dir: path.join(config.dataDir, 'blobs') });

export const openReadModels = (config: RuntimeConfig, kind: 'memory' | 'redis'): ReadModelStore => {
  if (kind === 'memory') return new MemoryReadModelStore();
  if (!config.redisUrl) throw new Error('RAILYARD_REDIS_URL is required for Redis read models');
  return new RedisReadModelStore({ redis: config.redisUrl, namespace: config.redisNamespace });
};

export const openGitHost = (config: RuntimeConfig): LocalGitHost => new LocalGitHost({ root: config.gitRoot });
