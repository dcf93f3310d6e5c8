import path from 'node:path';
import type { EventStoreConfig } from '@railyard/eventstore';

export interface ProjectorConfig {
  eventStore: EventStoreConfig;
  redisUrl: string;
  namespace: string;
  batchSize: number;
  leaseTtlMs: number;
}

type Env = Record<string, string | undefined>;

/** Reads the distributed-mode settings; throws on a value it cannot use rather than guessing. */
export const projectorConfigFromEnv = (env: Env): ProjectorConfig => {
  const dataDir = env.RAILYARD_DATA_DIR || './data';
  const kind = env.RAILYARD_EVENTSTORE || 'sqlite';
  let eventStore: EventStoreConfig;
  if (kind === 'sqlite') eventStore = { kind, file: path.join(dataDir, 'events.sqlite') };
  else if (kind === 'kurrent' || kind === 'kurrentdb') {
    const url = env.RAILYARD_KURRENTDB_URL;
    if (!url) throw new Error('RAILYARD_EVENTSTORE=kurrent needs RAILYARD_KURRENTDB_URL (kurrentdb://…)');
    eventStore = { kind: 'kurrent', url };
  } else throw new Error(`RAILYARD_EVENTSTORE must be sqlite or kurrent, not ${kind}`);

  return {
    eventStore,
    redisUrl: env.RAILYARD_REDIS_URL || 'redis://127.0.0.1:6379',
    namespace: env.RAILYARD_REDIS_NAMESPACE || 'rm1',
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
