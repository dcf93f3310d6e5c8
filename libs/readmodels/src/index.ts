export * from './port';
export { projectEvent } from './projection/project';
export { prViewOf, entryFactsOf } from './projection/pr-view';
export { foldBatch, targetsOfBatch, prKeyOf, type DocSet, type BatchChanges, type BatchTargets, type PrRef } from './projection/batch';
export { isCurrent, positionOf, type QueueDoc, type PrDoc, type ProjectionDocs } from './projection/docs';
export { byQueueOrder, isActive, queueOrderScore } from './projection/order';
export { targetOf, timeOf, type EventTarget } from './projection/target';
export { MemoryReadModelStore } from './memory/store';
export { RedisReadModelStore, type RedisReadModelStoreOptions } from './redis/store';
export { RedisLease, type RedisLeaseOptions } from './redis/lease';
export { redisKeys, encodePosition, type RedisKeys } from './redis/keys';
/** Builders for read-side tests (here and in the apps): domain events and their recorded form. */
export * as readModelTesting from './testing';
export * from './metrics';
export * from './testhealth';
export { foldTestRuns, testRunRefsOf, testRunKeyOf, type TestRunDocSet, type TestRunRefs, type TestRunChanges } from './testruns/project';
export type { TestRunDoc, PrTargetsDoc } from './testruns/docs';
/** Builders of engine events for test-run read-model tests. */
export * as testRunTesting from './testruns/fixtures';
/** API answers built from the views (and from the write side's state when the views lag). */
export * from './views';
/** The audit trail of a queue's stream and its replay to any moment. */
export * from './history';
/** Every Redis projection of a namespace, and the rebuild of read models from the whole log. */
export { openRedisProjections } from './redis-projections';
export { rebuildProjections, type RebuildOptions, type RebuildResult, type RebuildTarget } from './rebuild';
