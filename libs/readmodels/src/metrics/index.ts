export * from './projection/model';
export { foldMetricsEvent, emptyMetricsDoc } from './projection/project';
export { foldMetricsBatch, metricsQueuesOf } from './projection/batch';
export { queueMetricFamilies } from './series';
export { type MetricsStore } from './port';
export { MemoryMetricsStore } from './memory/store';
export { RedisMetricsStore, type RedisMetricsStoreOptions } from './redis/store';
export { metricsRedisKeys, type MetricsRedisKeys } from './redis/keys';
