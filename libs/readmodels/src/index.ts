/**
 * The read side, one folder per read model (docs/architecture.md, "Read models"): the queue and PR
 * views, test runs, metrics and test health, each with its port, projection, memory and Redis
 * adapters and contract suite, over the shared Redis infrastructure in redis/. Test builders are in
 * testing/, reached through `@railyard/readmodels/testing`, never through this barrel.
 */
export * from './queue';
export * from './testruns';
export * from './metrics';
export * from './testhealth';
export { RedisLease, type RedisLeaseOptions } from './redis/lease';
export { redisKeys, encodePosition, type RedisKeys } from './redis/keys';
/** The audit trail of a queue's stream and its replay to any moment. */
export * from './history';
export { isSnapshottable, type PagedDoc, type PagedDocs, type Snapshottable } from './memory/snapshot';
/** Every Redis projection of a namespace, and the rebuild of read models from the whole log. */
export { openRedisProjections } from './redis-projections';
export { rebuildProjections, type RebuildOptions, type RebuildResult, type RebuildTarget } from './rebuild';
