import type { EventStoreConfig } from '@railyard/eventstore';
import { loadConfig } from '@railyard/runtime';

export interface ProjectorConfig {
  eventStore: EventStoreConfig;
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
  const config = loadConfig(env);
  return {
    eventStore: config.eventStore,
    redisUrl: config.redisUrl ?? 'redis://127.0.0.1:6379',
    namespace: config.redisNamespace,
    ...config.projector,
    ...(config.metricsPort !== undefined ? { metricsPort: config.metricsPort } : {}),
    metricsHost: config.host,
    testHealthLimits: { maxRunsPerTest: config.testHealth.maxRunsPerTest, retentionDays: config.testHealth.retentionDays },
  };
};
