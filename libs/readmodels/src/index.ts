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
