import path from 'node:path';
import { parseGithubSettings, type GithubSettings } from '@railyard/github';

/** Every setting Railyard reads from the environment, in one place, with its embedded default. */
export interface RuntimeConfig {
  port: number;
  host: string;
  dataDir: string;
  gitRoot: string;
  /** Raw `name:secret:scope,…`; undefined means "bootstrap an admin token in the data dir". */
  apiTokens?: string;
  eventStore:
    | { kind: 'sqlite'; file: string; synchronous: 'full' | 'normal' }
    | { kind: 'kurrent'; url: string }
    | { kind: 'postgres'; url: string; schema: string }
    | { kind: 'memory' };
  redisUrl?: string;
  redisNamespace: string;
  readYourWritesTimeoutMs: number;
  /** Requests per second per API token; 0 = no limit. */
  rateLimitPerSecond: number;
  /** Requests per second per source address without a valid token (none, unknown); 0 = no limit. */
  rateLimitUnauthenticatedPerSecond: number;
  /** Request-body bytes held at once across all requests; over it, 503 with Retry-After. */
  maxBodyBytesInFlight: number;
  logLevel: string;
  /** The GitHub App (RAILYARD_GITHUB_*), or null when GitHub is not configured: docs/github.md. */
  github: GithubSettings | null;
}

const int = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
  return n;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): RuntimeConfig => {
  const dataDir = path.resolve(env.RAILYARD_DATA_DIR || './data');
  const sync = (env.RAILYARD_SQLITE_SYNC || 'full').toLowerCase();
  if (sync !== 'full' && sync !== 'normal') throw new Error('RAILYARD_SQLITE_SYNC must be full or normal');
  if (!env.RAILYARD_EVENTSTORE && env.RAILYARD_POSTGRES_URL && env.RAILYARD_KURRENTDB_URL)
    throw new Error('RAILYARD_POSTGRES_URL and RAILYARD_KURRENTDB_URL are both set: choose one with RAILYARD_EVENTSTORE');
  const implied = env.RAILYARD_POSTGRES_URL ? 'postgres' : env.RAILYARD_KURRENTDB_URL ? 'kurrent' : 'sqlite';
  const kind = (env.RAILYARD_EVENTSTORE || implied).toLowerCase();
  if (!['sqlite', 'kurrent', 'kurrentdb', 'postgres', 'memory'].includes(kind))
    throw new Error(`RAILYARD_EVENTSTORE must be sqlite, postgres, kurrent or memory, not ${kind}`);
  if (kind.startsWith('kurrent') && !env.RAILYARD_KURRENTDB_URL)
    throw new Error('RAILYARD_EVENTSTORE=kurrent needs RAILYARD_KURRENTDB_URL (kurrentdb://…)');
  if (kind === 'postgres' && !env.RAILYARD_POSTGRES_URL)
    throw new Error('RAILYARD_EVENTSTORE=postgres needs RAILYARD_POSTGRES_URL (postgres://…)');
  const eventStore: RuntimeConfig['eventStore'] = kind.startsWith('kurrent')
    ? { kind: 'kurrent', url: env.RAILYARD_KURRENTDB_URL as string }
    : kind === 'postgres'
      ? { kind: 'postgres', url: env.RAILYARD_POSTGRES_URL as string, schema: env.RAILYARD_POSTGRES_SCHEMA || 'railyard' }
      : kind === 'memory'
        ? { kind: 'memory' }
        : { kind: 'sqlite', file: path.resolve(env.RAILYARD_SQLITE_FILE || path.join(dataDir, 'events.sqlite')), synchronous: sync };
  return {
    port: int('PORT', env.PORT, 8080, 0, 65535),
    host: env.RAILYARD_HOST || '127.0.0.1',
    dataDir,
    gitRoot: path.resolve(env.RAILYARD_GIT_ROOT || path.join(dataDir, 'git')),
    apiTokens: env.RAILYARD_API_TOKENS || undefined,
    eventStore,
    redisUrl: env.RAILYARD_REDIS_URL || undefined,
    redisNamespace: env.RAILYARD_REDIS_NAMESPACE || 'rm1',
    readYourWritesTimeoutMs: int('RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS', env.RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS, 5000, 0, 600000),
    rateLimitPerSecond: int('RAILYARD_RATE_LIMIT_PER_SECOND', env.RAILYARD_RATE_LIMIT_PER_SECOND, 0, 0, 1_000_000),
    rateLimitUnauthenticatedPerSecond: int(
      'RAILYARD_RATE_LIMIT_UNAUTHENTICATED_PER_SECOND',
      env.RAILYARD_RATE_LIMIT_UNAUTHENTICATED_PER_SECOND,
      10,
      0,
      1_000_000,
    ),
    maxBodyBytesInFlight: int('RAILYARD_BODY_MIB_IN_FLIGHT', env.RAILYARD_BODY_MIB_IN_FLIGHT, 64, 1, 1_000_000) * 1024 * 1024,
    logLevel: env.RAILYARD_LOG_LEVEL || 'info',
    github: parseGithubSettings(env),
  };
};
