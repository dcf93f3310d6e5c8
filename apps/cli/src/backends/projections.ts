/**
 * Everything `projections rebuild` takes from other parts: the runtime's configuration and event
 * store, the Redis projections, their rebuild and the projector lease (all in libs/readmodels). Kept in this one
 * file so a move of those parts touches the CLI here only.
 */
export { loadConfig, openBlobStore, openEventStore } from '@railyard/runtime';
export { openRedisProjections, rebuildProjections, RedisLease, redisKeys } from '@railyard/readmodels';
