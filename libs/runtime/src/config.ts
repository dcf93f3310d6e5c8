import { ignoredSettings, type IgnoredSetting } from './ignored-settings';
import path from 'node:path';
import { parseGithubSettings, type GithubSettings } from '@railyard/github';
import { parseRailyardEnv, type RailyardEnv } from './env';

/** Every setting Railyard reads from the environment, in one place, with its embedded default. */
export interface RuntimeConfig {
  port: number;
  host: string;
  dataDir: string;
  gitRoot: string;
  /** Raw `name:secret:scope,…`; undefined means "bootstrap an admin token in the data dir". */
  apiTokens?: string;
  /** RAILYARD_API_TOKENS_FILE: the same list read from a file (mode 0600), so secrets need not sit in the environment. */
  apiTokensFile?: string;
  /**
   * RAILYARD_SECRETS_FROM_DATA_DIR=on: a standalone API may create and read the bootstrap token and the
   * page-token secret in its data dir, which is right only when every API process shares that dir (secrets.ts).
   */
  secretsFromDataDir: boolean;
  eventStore:
    | { kind: 'sqlite'; file: string; synchronous: 'full' | 'normal'; handOver?: boolean }
    | { kind: 'kurrent'; url: string }
    | { kind: 'postgres'; url: string; schema: string; readAhead: boolean }
    | { kind: 'memory' };
  redisUrl?: string;
  redisNamespace: string;
  /** RAILYARD_REDIS_STORED_ANSWERS: API replicas keep built getQueue and PR answers until the queue's next batch (D253, D332). */
  redisStoredAnswers: boolean;
  readYourWritesTimeoutMs: number;
  /** Requests per second per API token; 0 = no limit. */
  rateLimitPerSecond: number;
  /** Requests per second per source address without a valid token (none, unknown); 0 = no limit. */
  rateLimitUnauthenticatedPerSecond: number;
  /** Request-body bytes held at once across all requests; over it, 503 with Retry-After. */
  maxBodyBytesInFlight: number;
  /** RAILYARD_TRUST_PROXY: the proxies whose X-Forwarded-Proto (and -For) count, as express's `trust proxy`; none when unset. */
  trustProxy?: number | string;
  /** RAILYARD_SECURE_COOKIES: `auto`, Secure on cookies of requests that came over TLS; `always`, on every cookie. */
  secureCookies: 'auto' | 'always';
  /** RAILYARD_DASHBOARD_OUTCOMES_HOURS: how far back the queue page lists merged, failed and cancelled PRs. */
  dashboardOutcomesHours: number;
  logLevel: string;
  /** Over this projection lag (age of the oldest event the read models have not applied), /readyz fails and writes answer 503. */
  projectionMaxLagMs: number;
  /** A snapshot of the embedded read models, and of the engine's state in every shape, once this many positions past the last; 0 = never. */
  snapshotEveryEvents: number;
  /** A separate /metrics listener for the standalone engine and projector processes; none when unset. */
  metricsPort?: number;
  /** The GitHub App (RAILYARD_GITHUB_*), or null when GitHub is not configured: docs/github.md. */
  github: GithubSettings | null;
  /** RAILYARD_GITHUB_STICKY_COMMENT: one status comment per GitHub PR beside its check run (off by default). */
  githubStickyComments: boolean;
  /** Outgoing webhooks (docs/webhooks.md): the networks endpoints may reach besides public addresses. */
  webhooks: {
    allowNetworks: string[];
    retry: { minMs: number; maxMs: number; maxAttempts: number };
    /** RAILYARD_WEBHOOKS_SECRET_KEYS: the first seals the signing secrets in the log, every one opens (D249); empty: in clear. */
    secretKeys: { id: string; key: Buffer }[];
  };
}

/** The local CI runner's settings (libs/ci's CiSettings, less the data dir and git root given beside them). */
export interface CiConfig {
  /** Base of the log and PR URLs handed out; unset means "the address the API listens on". */
  publicUrl?: string;
  concurrency: number;
  /** SIGTERM → SIGKILL delay for cancelled and timed-out checks. */
  killGraceMs: number;
  /** `auto`: bubblewrap, else the unshare sandbox. `off` is for development only: checks can then read the server's secrets (docs/security.md). */
  sandbox: 'auto' | 'bwrap' | 'unshare' | 'off';
  network: 'none' | 'host';
  /** How much nicer than the server checks run (Linux niceness, 0-19, added to the process's own; docs/decisions.md D330). */
  niceness: number;
  /** What one check may use (libs/ci's CheckLimits). */
  limits: { processes: number; memoryMib: number; cpus: number; diskMib: number; logMib: number };
  /** `auto`, `off`, or a delegated cgroup v2 directory for the checks' cgroups. */
  cgroup: string;
  /** Files holding secrets that checks must not see even under a system directory. */
  hiddenPaths: string[];
}

/** Test health's plain settings; the API turns them into its TestHealthConfig (page-token secret file). */
export interface TestHealthSettings {
  /** The organisation slug test ids are computed with (Trunk's org_url_slug); list requests must name it. */
  orgSlug: string;
  /** HMAC key of page tokens, shared by every API process; unset, the API keeps a generated one in the data dir. */
  pageTokenSecret?: string;
  /** Base of the html_url fields; when absent the server's own address is used. */
  publicUrl?: string;
  /** A ticket's page with `{id}` where its id goes (link-ticket-to-test-case's external_ticket_id), e.g. a Jira browse URL. */
  ticketUrl?: string;
  /** Worker threads parsing JUnit, at least one: the request thread never parses. */
  parseWorkers: number;
  /** Uploads waiting for a parser beyond this are refused with 503 and Retry-After. */
  maxQueuedParses: number;
  /** Minutes between re-evaluations of the watched tests (time-based recoveries); 0 turns the sweep off. */
  sweepMinutes: number;
  /** Both read-model processes (embedded server, projector) must hold the same two, or a rebuild differs. */
  maxRunsPerTest: number;
  retentionDays: number;
}

export interface EngineSettings {
  /** `RAILYARD_ENGINE=off` leaves the queues to a standalone engine (`npm run start:engine`). */
  enabled: boolean;
  tickMs: number;
  /** How often each queue's host facts are re-read whatever the events said. */
  verifyMs: number;
  leaseTtlMs: number;
  /** Mergeability worked out per second for PRs behind each queue's window (docs/engine.md, "Mergeability"). */
  mergeabilityPerSecond: number;
}

/** How long commit statuses and archived check logs are kept (docs/decisions.md D296). */
export interface RetentionSettings {
  /** Days after a commit's last status, or a log's archiving, before they are swept; 0 keeps them for ever. */
  days: number;
  /** Minutes between sweeps. */
  sweepMinutes: number;
}

export interface ProjectorSettings {
  batchSize: number;
  /** How long a killed projector's lease outlives it: the longest a standby waits after a kill -9. */
  leaseTtlMs: number;
  /** How often a standby tries the lease: the longest it waits after a holder released it (SIGTERM). */
  leaseRetryMs: number;
}

/** Every process shape's settings, from one parse of the environment (env.ts). */
export interface RailyardConfig extends RuntimeConfig {
  publicUrl?: string;
  /** RAILYARD_ variables set but read by nothing (retired, or misspelt): each process warns of them at start. */
  ignoredSettings: IgnoredSetting[];
  ci: CiConfig;
  retention: RetentionSettings;
  testHealth: TestHealthSettings;
  engine: EngineSettings;
  projector: ProjectorSettings;
}

const eventStoreOf = (env: RailyardEnv, dataDir: string): RuntimeConfig['eventStore'] => {
  if (!env.RAILYARD_EVENTSTORE && env.RAILYARD_POSTGRES_URL && env.RAILYARD_KURRENTDB_URL)
    throw new Error('RAILYARD_POSTGRES_URL and RAILYARD_KURRENTDB_URL are both set: choose one with RAILYARD_EVENTSTORE');
  const implied = env.RAILYARD_POSTGRES_URL ? 'postgres' : env.RAILYARD_KURRENTDB_URL ? 'kurrent' : 'sqlite';
  const kind = env.RAILYARD_EVENTSTORE ?? implied;
  if (!['sqlite', 'kurrent', 'kurrentdb', 'postgres', 'memory'].includes(kind))
    throw new Error(`RAILYARD_EVENTSTORE must be sqlite, postgres, kurrent or memory, not ${kind}`);
  if (kind.startsWith('kurrent') && !env.RAILYARD_KURRENTDB_URL)
    throw new Error('RAILYARD_EVENTSTORE=kurrent needs RAILYARD_KURRENTDB_URL (kurrentdb://…)');
  if (kind === 'postgres' && !env.RAILYARD_POSTGRES_URL)
    throw new Error('RAILYARD_EVENTSTORE=postgres needs RAILYARD_POSTGRES_URL (postgres://…)');
  if (kind.startsWith('kurrent')) return { kind: 'kurrent', url: env.RAILYARD_KURRENTDB_URL as string };
  if (kind === 'postgres')
    return {
      kind: 'postgres',
      url: env.RAILYARD_POSTGRES_URL as string,
      schema: env.RAILYARD_POSTGRES_SCHEMA,
      readAhead: env.RAILYARD_POSTGRES_READ_AHEAD === 'on',
    };
  if (kind === 'memory') return { kind: 'memory' };
  return {
    kind: 'sqlite',
    file: path.resolve(env.RAILYARD_SQLITE_FILE ?? path.join(dataDir, 'events.sqlite')),
    synchronous: env.RAILYARD_SQLITE_SYNC,
    handOver: env.RAILYARD_SQLITE_HAND_OVER === 'on',
  };
};

/**
 * The configuration of every Railyard process, worked out once from the environment: entry points
 * call this and pass plain values on; nothing else reads `process.env` (eslint.config.mjs).
 */
export const loadConfig = (env: Record<string, string | undefined> = process.env): RailyardConfig => {
  const e = parseRailyardEnv(env);
  // Two sources of secrets would leave a reader guessing which one the server uses.
  if (e.RAILYARD_API_TOKENS && e.RAILYARD_API_TOKENS_FILE)
    throw new Error('RAILYARD_API_TOKENS and RAILYARD_API_TOKENS_FILE are both set: keep one');
  // The data dir and git root defaults are worked out here only.
  const dataDir = path.resolve(e.RAILYARD_DATA_DIR);
  const publicUrl = e.RAILYARD_PUBLIC_URL;
  return {
    ignoredSettings: ignoredSettings(env),
    port: e.PORT,
    host: e.RAILYARD_HOST,
    ...(publicUrl ? { publicUrl } : {}),
    dataDir,
    gitRoot: path.resolve(e.RAILYARD_GIT_ROOT ?? path.join(dataDir, 'git')),
    apiTokens: e.RAILYARD_API_TOKENS,
    ...(e.RAILYARD_API_TOKENS_FILE ? { apiTokensFile: path.resolve(e.RAILYARD_API_TOKENS_FILE) } : {}),
    secretsFromDataDir: e.RAILYARD_SECRETS_FROM_DATA_DIR === 'on',
    eventStore: eventStoreOf(e, dataDir),
    redisUrl: e.RAILYARD_REDIS_URL,
    redisNamespace: e.RAILYARD_REDIS_NAMESPACE,
    redisStoredAnswers: e.RAILYARD_REDIS_STORED_ANSWERS === 'on',
    readYourWritesTimeoutMs: e.RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS,
    rateLimitPerSecond: e.RAILYARD_RATE_LIMIT_PER_SECOND,
    rateLimitUnauthenticatedPerSecond: e.RAILYARD_RATE_LIMIT_UNAUTHENTICATED_PER_SECOND,
    maxBodyBytesInFlight: e.RAILYARD_BODY_MIB_IN_FLIGHT * 1024 * 1024,
    ...(e.RAILYARD_TRUST_PROXY !== undefined ? { trustProxy: e.RAILYARD_TRUST_PROXY } : {}),
    secureCookies: e.RAILYARD_SECURE_COOKIES,
    dashboardOutcomesHours: e.RAILYARD_DASHBOARD_OUTCOMES_HOURS,
    logLevel: e.RAILYARD_LOG_LEVEL,
    projectionMaxLagMs: e.RAILYARD_PROJECTION_MAX_LAG_MS,
    snapshotEveryEvents: e.RAILYARD_SNAPSHOT_EVERY_EVENTS,
    ...(e.RAILYARD_METRICS_PORT !== undefined ? { metricsPort: e.RAILYARD_METRICS_PORT } : {}),
    github: parseGithubSettings(env),
    githubStickyComments: e.RAILYARD_GITHUB_STICKY_COMMENT === 'on',
    webhooks: {
      allowNetworks: (e.RAILYARD_WEBHOOKS_ALLOW_NETWORKS ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      retry: { minMs: e.RAILYARD_WEBHOOKS_RETRY_MIN_MS, maxMs: 4 * 3600_000, maxAttempts: e.RAILYARD_WEBHOOKS_RETRY_ATTEMPTS },
      secretKeys: e.RAILYARD_WEBHOOKS_SECRET_KEYS,
    },
    ci: {
      ...(publicUrl ? { publicUrl } : {}),
      concurrency: e.RAILYARD_CI_CONCURRENCY,
      killGraceMs: e.RAILYARD_CI_KILL_GRACE_MS,
      sandbox: e.RAILYARD_CI_SANDBOX,
      network: e.RAILYARD_CI_NETWORK,
      niceness: e.RAILYARD_CI_NICENESS,
      limits: {
        processes: e.RAILYARD_CI_MAX_PROCESSES,
        memoryMib: e.RAILYARD_CI_MEMORY_MIB,
        cpus: e.RAILYARD_CI_CPUS,
        diskMib: e.RAILYARD_CI_DISK_MIB,
        logMib: e.RAILYARD_CI_LOG_MIB,
      },
      cgroup: e.RAILYARD_CI_CGROUP,
      hiddenPaths: e.RAILYARD_API_TOKENS_FILE ? [path.resolve(e.RAILYARD_API_TOKENS_FILE)] : [],
    },
    retention: { days: e.RAILYARD_CI_RETENTION_DAYS, sweepMinutes: e.RAILYARD_CI_RETENTION_SWEEP_MINUTES },
    testHealth: {
      orgSlug: e.RAILYARD_ORG_SLUG,
      ...(e.RAILYARD_PAGE_TOKEN_SECRET ? { pageTokenSecret: e.RAILYARD_PAGE_TOKEN_SECRET } : {}),
      ...(publicUrl ? { publicUrl } : {}),
      ...(e.RAILYARD_TICKET_URL ? { ticketUrl: e.RAILYARD_TICKET_URL } : {}),
      parseWorkers: e.RAILYARD_JUNIT_PARSE_WORKERS,
      maxQueuedParses: e.RAILYARD_JUNIT_MAX_QUEUED,
      sweepMinutes: e.RAILYARD_TEST_HEALTH_SWEEP_MINUTES,
      maxRunsPerTest: e.RAILYARD_TEST_HISTORY_MAX_RUNS,
      retentionDays: e.RAILYARD_TEST_HISTORY_DAYS,
    },
    engine: {
      enabled: e.RAILYARD_ENGINE === 'on',
      tickMs: e.RAILYARD_ENGINE_TICK_MS,
      verifyMs: e.RAILYARD_ENGINE_VERIFY_MS,
      leaseTtlMs: e.RAILYARD_ENGINE_LEASE_TTL_MS,
      mergeabilityPerSecond: e.RAILYARD_ENGINE_MERGEABILITY_PER_SECOND,
    },
    projector: {
      batchSize: e.RAILYARD_PROJECTOR_BATCH_SIZE,
      leaseTtlMs: e.RAILYARD_PROJECTOR_LEASE_TTL_MS,
      leaseRetryMs: e.RAILYARD_PROJECTOR_LEASE_RETRY_MS,
    },
  };
};

/**
 * The API composition's plain settings, the same for the distributed API and the embedded server.
 * A function rather than a section: `startServer` lets tests override the data dir and git root.
 */
export const apiSettingsOf = (config: RailyardConfig) => ({
  gitRoot: config.gitRoot,
  dataDir: config.dataDir,
  readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
  rateLimitPerSecond: config.rateLimitPerSecond,
  rateLimitUnauthenticatedPerSecond: config.rateLimitUnauthenticatedPerSecond,
  maxBodyBytesInFlight: config.maxBodyBytesInFlight,
  projectionMaxLagMs: config.projectionMaxLagMs,
  ...(config.trustProxy !== undefined ? { trustProxy: config.trustProxy } : {}),
  secureCookies: config.secureCookies,
  dashboardOutcomesHours: config.dashboardOutcomesHours,
  ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
});

/** The Redis a standalone process (API, engine, projector) uses when RAILYARD_REDIS_URL is unset. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A standalone process's configuration: Redis always, defaulted alike in all of them, so their
 * blob store (blobStoreConfigOf) is the same one too. The embedded server keeps an unset Redis unset.
 */
export const withDistributedRedis = <C extends { redisUrl?: string }>(config: C): C & { redisUrl: string } => ({
  ...config,
  redisUrl: config.redisUrl ?? DEFAULT_REDIS_URL,
});
