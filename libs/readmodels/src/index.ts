export * from './queue/port';
export { projectEvent } from './queue/projection/project';
export { prViewOf, entryFactsOf } from './queue/projection/pr-view';
export {
  foldBatch,
  targetsOfBatch,
  prKeyOf,
  type DocSet,
  type BatchChanges,
  type BatchTargets,
  type PrRef,
} from './queue/projection/batch';
export { isCurrent, positionOf, type QueueDoc, type PrDoc, type ProjectionDocs } from './queue/projection/docs';
export { byQueueOrder, isActive, queueOrderScore } from './queue/projection/order';
export { targetOf, timeOf, type EventTarget } from './queue/projection/target';
export { MemoryReadModelStore } from './queue/memory/store';
export { RedisReadModelStore, type RedisReadModelStoreOptions } from './queue/redis/store';
export { RedisLease, type RedisLeaseOptions } from './redis/lease';
export { redisKeys, encodePosition, type RedisKeys } from './redis/keys';
/** Builders for read-side tests (here and in the apps): domain events and their recorded form. */
export * as readModelTesting from './testing';
export * from './metrics';
export * from './testhealth';
export { foldTestRuns, testRunRefsOf, testRunKeyOf, type TestRunDocSet, type TestRunRefs, type TestRunChanges } from './testruns/project';
export type { TestRunDoc, PrTargetsDoc } from './testruns/docs';
/**
 * Test builders, all in testing/ and in no slice's barrel; re-exported here under the names tests in
 * the apps already import.
 */
export * as testRunTesting from './testing/testruns';
export * as metricsTesting from './testing/metrics';
export * as testHealthTesting from './testing/testhealth';
/** API answers built from the views (and from the write side's state when the views lag). */
export * from './queue/views';
/** The audit trail of a queue's stream and its replay to any moment. */
export * from './history';
/** Every Redis projection of a namespace, and the rebuild of read models from the whole log. */
export { openRedisProjections } from './redis-projections';
export { rebuildProjections, type RebuildOptions, type RebuildResult, type RebuildTarget } from './rebuild';
export * from './queue/explain';
