import type { EventStoreConfig } from '@railyard/eventstore';
import { loadConfig } from '@railyard/runtime';

export interface ProjectorConfig {
  eventStore: EventStoreConfig;
  redisUrl: string;
  namespace: string;
  batchSize: number;
  leaseTtlMs: number;
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
    batchSize: positiveInt(env, 'RAILYARD_PROJECTOR_BATCH_SIZE', 500),
    leaseTtlMs: positiveInt(env, 'RAILYARD_PROJECTOR_LEASE_TTL_MS', 15_000),
  };
};

const positiveInt = (env: Env, name: string, fallback: number): number => {
  const raw = env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not ${raw}`);
  return n;
};
