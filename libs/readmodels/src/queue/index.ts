export * from './port';
export { projectEvent } from './projection/project';
export { prViewOf, entryFactsOf } from './projection/pr-view';
export { foldBatch, targetsOfBatch, prKeyOf, type DocSet, type BatchChanges, type BatchTargets, type PrRef } from './projection/batch';
export { isCurrent, positionOf, type QueueDoc, type PrDoc, type ProjectionDocs } from './projection/docs';
export { byQueueOrder, isActive, queueOrderScore } from './projection/order';
export { matchesListing, pageOf, type PrListPage, type PrListQuery } from './projection/listing';
export { targetOf, timeOf, type EventTarget } from '../events/queue-event';
export { MemoryReadModelStore } from './memory/store';
export { RedisReadModelStore, type RedisReadModelStoreOptions } from './redis/store';
/** API answers built from the views (and from the write side's state when the views lag). */
export * from './views';
export * from './explain';
