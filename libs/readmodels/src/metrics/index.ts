export * from './model';
export { foldMetricsEvent, emptyMetricsDoc } from './project';
export { foldMetricsBatch, metricsQueuesOf } from './batch';
export { queueMetricFamilies } from './series';
export { type MetricsStore } from './port';
export { MemoryMetricsStore } from './memory-store';
export { RedisMetricsStore, type RedisMetricsStoreOptions } from './redis-store';
export { metricsRedisKeys, type MetricsRedisKeys } from './redis-keys';
