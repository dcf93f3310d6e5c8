import type { BlobStoreConfig, EventStoreConfig } from '@railyard/eventstore';
import { blobStoreConfigOf, loadConfig, withDistributedRedis, type IgnoredSetting } from '@railyard/runtime';

export interface ProjectorConfig {
  /** RAILYARD_ variables set but read by nothing, warned of at start. */
  ignoredSettings: IgnoredSetting[];
  eventStore: EventStoreConfig;
  /** Where the API put the upload case lists the test-health projection reads (D185). */
  blobs: BlobStoreConfig;
  redisUrl: string;
  namespace: string;
  batchSize: number;
  /** How long a killed projector's lease outlives it: the longest a standby waits after a kill -9 (docs/operations.md). */
  leaseTtlMs: number;
  /** How often a standby tries the lease: the longest it waits after a holder released it (SIGTERM). */
  leaseRetryMs: number;
  /** RAILYARD_METRICS_PORT: GET /metrics of this process; none when unset. */
  metricsPort?: number;
  /** Where the metrics listener binds (RAILYARD_HOST). */
  metricsHost: string;
  /** The same history limits as the embedded server's test-health models. */
  testHealthLimits: { maxRunsPerTest: number; retentionDays: number };
}

type Env = Record<string, string | undefined>;

/**
 * The distributed projector's settings: where events and Redis are come from the same loadConfig the
 * API and engine use (so they always agree on the store), plus the projector's own two knobs.
 */
export const projectorConfigFromEnv = (env: Env): ProjectorConfig => {
  // Redis defaulted as in the API and the engine, so all find the blobs in the same place.
  const config = withDistributedRedis(loadConfig(env));
  return {
    ignoredSettings: config.ignoredSettings,
    eventStore: config.eventStore,
    blobs: blobStoreConfigOf(config),
    redisUrl: config.redisUrl,
    namespace: config.redisNamespace,
    ...config.projector,
    ...(config.metricsPort !== undefined ? { metricsPort: config.metricsPort } : {}),
    metricsHost: config.host,
    testHealthLimits: { maxRunsPerTest: config.testHealth.maxRunsPerTest, retentionDays: config.testHealth.retentionDays },
  };
};
