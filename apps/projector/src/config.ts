import type { EventStoreConfig } from '@railyard/eventstore';
import { loadConfig } from '@railyard/runtime';

export interface ProjectorConfig {
  eventStore: EventStoreConfig;
  redisUrl: string;
  namespace: string;
  batchSize: number;
  /** How long a killed projector's lease outlives it: the longest a standby waits after a kill -9. */
  leaseTtlMs: number;
  /** How often a standby tries the lease: the longest it waits after a holder released it (SIGTERM). */
  leaseRetryMs: number;
  /** RAILYARD_METRICS_PORT: GET /metrics of this process; none when unset. */
  metricsPort?: number;
  /** Where the metrics listener binds (RAILYARD_HOST). */
  metricsHost: string;
}

type Env = Record<string, string | undefined>;

// A kill -9 leaves the read models unprojected for up to the TTL, while a shorter one is lost to a
// long GC pause or Redis hiccup more easily (renewals every TTL/3); 10 s is the middle docs/operations.md argues.
export const DEFAULT_LEASE_TTL_MS = 10_000;
// One SET NX per standby per interval is all a fast hand-over costs.
export const DEFAULT_LEASE_RETRY_MS = 250;

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
    batchSize: positiveInt(env, 'RAILYARD_PROJECTOR_BATCH_SIZE', 500),
    leaseTtlMs: positiveInt(env, 'RAILYARD_PROJECTOR_LEASE_TTL_MS', DEFAULT_LEASE_TTL_MS),
    leaseRetryMs: positiveInt(env, 'RAILYARD_PROJECTOR_LEASE_RETRY_MS', DEFAULT_LEASE_RETRY_MS),
    ...(config.metricsPort !== undefined ? { metricsPort: config.metricsPort } : {}),
    metricsHost: config.host,
  };
};

const positiveInt = (env: Env, name: string, fallback: number): number => {
  const raw = env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not ${raw}`);
  return n;
};
