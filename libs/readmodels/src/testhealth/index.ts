export type { TestHealthReadModels, TestHistory, ListedPage } from './port';
export {
  HEALTHY_REASON,
  newTestDoc,
  encodeRun,
  decodeRun,
  type TestDoc,
  type StoredTest,
  type UploadMeta,
  type RunEntry,
} from './projection/docs';
export { foldUpload, foldTestEvent, uploadMetaOf, testIdOfEvent, type TestWrite } from './projection/fold';
export { historyOf, DEFAULT_MAX_RUNS_PER_TEST, DEFAULT_RETENTION_DAYS } from './projection/history';
export {
  unhealthySortKey,
  quarantinedSortKey,
  sortKeyOf,
  memberOfKey,
  keyOfMember,
  membershipOf,
  indexOpsOf,
  type IndexName,
  type IndexOp,
} from './projection/indexes';
export { MemoryTestHealthStore, type TestHealthStoreOptions } from './memory/store';
export { RedisTestHealthStore, type RedisTestHealthStoreOptions } from './redis/store';
export { testHealthKeys, type TestHealthKeys } from './redis/keys';
