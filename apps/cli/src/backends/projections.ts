/**
 * Everything `projections rebuild` takes from other parts: the runtime's configuration and event
 * store, the projector's Redis projections and rebuild, and the projector lease. Kept in this one
 * file so a move of those parts touches the CLI here only.
 */
export { loadConfig, openEventStore } from '@railyard/runtime';
export { openRedisProjections, rebuildProjections } from '@railyard/projector';
export { RedisLease, redisKeys } from '@railyard/readmodels';
