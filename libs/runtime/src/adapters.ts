import path from 'node:path';
import { createBlobStore, createEventStore, type BlobStore, type BlobStoreConfig, type EventStore } from '@railyard/eventstore';
import type { RepoRef } from '@railyard/domain';
import type { GithubParts } from '@railyard/github';
import { LocalGitHost, STATUS_STREAM_PREFIX, type GitHost } from '@railyard/githost';
import { MemoryReadModelStore, RedisReadModelStore, type ReadModelStore } from '@railyard/readmodels';
import type { RetentionSettings, RuntimeConfig } from './config';

const DAY_SECONDS = 24 * 60 * 60;

/**
 * The event store as configured; on KurrentDB, which cannot drop streams by prefix, commit-status
 * streams are given RAILYARD_CI_RETENTION_DAYS as their `$maxAge` when they are created (D314).
 */
export const openEventStore = (config: Pick<RuntimeConfig, 'eventStore'> & { retention?: RetentionSettings }): Promise<EventStore> => {
  const store = config.eventStore;
  const days = config.retention?.days ?? 0;
  if (store.kind !== 'kurrent' || days <= 0) return createEventStore(store);
  return createEventStore({ ...store, streamMaxAge: { prefix: STATUS_STREAM_PREFIX, seconds: days * DAY_SECONDS } });
};

/**
 * Where blobs live (docs/decisions.md, D185): in the event store's PostgreSQL schema when there is
 * one, since events name them and must not outlive them; else in Redis when processes share it; on
 * disk for the embedded shape. Every process that reads or writes blobs (API, engine, projector, the
 * CLI's rebuild) asks this one function, so they all agree.
 */
export const blobStoreConfigOf = (
  config: Pick<RuntimeConfig, 'eventStore' | 'redisUrl' | 'redisNamespace' | 'dataDir'>,
): BlobStoreConfig => {
  const events = config.eventStore;
  if (events.kind === 'postgres') return { kind: 'postgres', url: events.url, schema: events.schema };
  if (config.redisUrl) return { kind: 'redis', url: config.redisUrl, prefix: `ry:{${config.redisNamespace}}:blob:` };
  return { kind: 'fs', dir: path.join(config.dataDir, 'blobs') };
};

export const openBlobStore = (config: RuntimeConfig): Promise<BlobStore> => createBlobStore(blobStoreConfigOf(config));

export const openReadModels = (config: RuntimeConfig, kind: 'memory' | 'redis'): ReadModelStore => {
  if (kind === 'memory') return new MemoryReadModelStore();
  if (!config.redisUrl) throw new Error('RAILYARD_REDIS_URL is required for Redis read models');
  return new RedisReadModelStore({
    redis: config.redisUrl,
    namespace: config.redisNamespace,
    storedAnswers: config.redisStoredAnswers,
  });
};

/**
 * The read side of the code hosts (submissions read the PR): repositories of the configured GitHub
 * through its App, every other one on the local git host (docs/githost.md).
 */
export const openGitHost = (config: RuntimeConfig, github?: GithubParts | null): GitHost => {
  const local = new LocalGitHost({ root: config.gitRoot });
  if (!github) return local;
  const isGithub = (repo: RepoRef): boolean => repo.host.toLowerCase() === github.hostName;
  return {
    getPullRequest: (repo, number, opts) =>
      isGithub(repo) ? github.host.snapshot(repo, number) : local.getPullRequest(repo, number, opts),
    close: () => local.close(),
  };
};
