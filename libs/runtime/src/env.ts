import { z } from 'zod';

/**
 * The one parser of Railyard's environment: every variable a server process reads (API, engine,
 * projector, embedded server, the CLI's direct-store commands), with its bounds and default. An unset
 * or empty variable takes the default; a bad one stops the start with a message naming it.
 * `.env.example` lists the same variables.
 */

const raw = z.string().optional();

/**
 * RAILYARD_WEBHOOKS_SECRET_KEYS: `id:base64key` entries, comma-separated, the key that seals first.
 * Each key is 32 bytes (`openssl rand -base64 32`); ids are unique. Never echoes a key in its errors.
 */
export const webhookSecretKeysOf = (value: string | undefined): { id: string; key: Buffer }[] => {
  if (value === undefined) return [];
  const keys = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(':');
      const id = at > 0 ? entry.slice(0, at) : '';
      if (!/^[A-Za-z0-9_.-]{1,40}$/.test(id))
        throw new RangeError('each key must be id:base64key, the id of letters, digits, ".", "_" or "-"');
      const key = Buffer.from(entry.slice(at + 1), 'base64');
      if (key.length !== 32) throw new RangeError(`key "${id}" must be 32 bytes in base64 (openssl rand -base64 32)`);
      return { id, key };
    });
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new RangeError('two keys have the same id');
  return keys;
};

const text = raw.transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const textOr = (fallback: string) => text.transform((v) => v ?? fallback);

/** A number in bounds, fractions allowed (CPUs). */
const decimal = (fallback: number, min: number, max: number) =>
  raw.transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return fallback;
    const n = Number(v);
    if (Number.isFinite(n) && n >= min && n <= max) return n;
    ctx.addIssue({ code: 'custom', message: `must be a number from ${min} to ${max}, not "${v}"` });
    return z.NEVER;
  });

const int = (fallback: number, min: number, max: number) =>
  raw.transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return fallback;
    const n = Number(v);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}, not "${v}"` });
    return z.NEVER;
  });

/** Unset or empty: undefined (the feature is off); otherwise an integer in bounds. */
const optionalInt = (min: number, max: number) =>
  raw.transform((v, ctx): number | undefined => {
    if (v === undefined || v.trim() === '') return undefined;
    const n = Number(v);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}, not "${v}"` });
    return z.NEVER;
  });

/** The first value is the default; letters are compared in lower case. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  raw.transform((v, ctx): T[number] => {
    const value = (v ?? '').trim().toLowerCase() || values[0];
    if ((values as readonly string[]).includes(value)) return value as T[number];
    ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')}, not "${v}"` });
    return z.NEVER;
  });

const httpUrl = text.transform((v, ctx) => {
  if (v === undefined) return undefined;
  if (/^https?:\/\/[^\s/]+(\/\S*)?$/i.test(v)) return v.replace(/\/+$/, '');
  ctx.addIssue({ code: 'custom', message: `must be an http(s) URL, not "${v}"` });
  return z.NEVER;
});

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Which proxies may say how a request reached them (express's `trust proxy`): a number of hops, or
 * addresses, subnets and express's names (`loopback`, `linklocal`, `uniquelocal`), comma separated.
 * Unset: none. Trusting every address is refused: a client that reaches Railyard directly could then
 * claim any protocol and address.
 */
const trustProxy = text.transform((v, ctx): number | string | undefined => {
  if (v === undefined) return undefined;
  if (/^\d{1,2}$/.test(v)) return Number(v);
  const items = v.split(',').map((s) => s.trim());
  if (items.every((s) => /^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d{1,3})?)$/.test(s))) return items.join(',');
  ctx.addIssue({
    code: 'custom',
    message: `must be a number of hops or addresses, subnets, loopback, linklocal or uniquelocal, not "${v}"`,
  });
  return z.NEVER;
});

export const railyardEnvSchema = z.object({
  PORT: int(8080, 0, 65535),
  RAILYARD_HOST: textOr('127.0.0.1'),
  RAILYARD_PUBLIC_URL: httpUrl,
  RAILYARD_DATA_DIR: textOr('./data'),
  RAILYARD_GIT_ROOT: text,
  RAILYARD_API_TOKENS: text,
  RAILYARD_API_TOKENS_FILE: text,
  RAILYARD_SECRETS_FROM_DATA_DIR: oneOf(['off', 'on']),
  RAILYARD_RATE_LIMIT_PER_SECOND: int(0, 0, 1_000_000),
  RAILYARD_RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: int(100, 0, 1_000_000),
  RAILYARD_BODY_MIB_IN_FLIGHT: int(64, 1, 1_000_000),
  RAILYARD_TRUST_PROXY: trustProxy,
  RAILYARD_SECURE_COOKIES: oneOf(['auto', 'always']),
  RAILYARD_DASHBOARD_OUTCOMES_HOURS: int(24, 1, 24 * 90),
  RAILYARD_EVENTSTORE: text.transform((v) => v?.toLowerCase()),
  RAILYARD_SQLITE_FILE: text,
  RAILYARD_SQLITE_SYNC: oneOf(['full', 'normal']),
  RAILYARD_SQLITE_HAND_OVER: oneOf(['on', 'off']),
  RAILYARD_KURRENTDB_URL: text,
  RAILYARD_POSTGRES_URL: text,
  RAILYARD_POSTGRES_SCHEMA: textOr('railyard'),
  RAILYARD_POSTGRES_READ_AHEAD: oneOf(['on', 'off']),
  RAILYARD_REDIS_URL: text,
  RAILYARD_REDIS_NAMESPACE: textOr('rm1'),
  RAILYARD_REDIS_STORED_ANSWERS: oneOf(['on', 'off']),
  RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS: int(5000, 0, 600_000),
  RAILYARD_PROJECTOR_BATCH_SIZE: int(500, 1, 1_000_000),
  RAILYARD_PROJECTOR_LEASE_TTL_MS: int(10_000, 1, 3_600_000),
  RAILYARD_PROJECTOR_LEASE_RETRY_MS: int(250, 1, 60_000),
  RAILYARD_PROJECTION_MAX_LAG_MS: int(10_000, 100, 3_600_000),
  RAILYARD_SNAPSHOT_EVERY_EVENTS: int(100_000, 0, 1_000_000_000),
  RAILYARD_METRICS_PORT: optionalInt(0, 65535),
  RAILYARD_ENGINE: oneOf(['on', 'off']),
  RAILYARD_ENGINE_TICK_MS: int(1000, 10, 3_600_000),
  RAILYARD_ENGINE_VERIFY_MS: int(30_000, 100, 86_400_000),
  RAILYARD_ENGINE_LEASE_TTL_MS: int(10_000, 100, 3_600_000),
  RAILYARD_ENGINE_MERGEABILITY_PER_SECOND: int(10, 0, 10_000),
  RAILYARD_CI_CONCURRENCY: int(2, 1, 256),
  RAILYARD_CI_KILL_GRACE_MS: int(5000, 0, 600_000),
  RAILYARD_CI_SANDBOX: oneOf(['auto', 'bwrap', 'unshare', 'off']),
  RAILYARD_CI_NETWORK: oneOf(['none', 'host']),
  RAILYARD_CI_NICENESS: int(10, 0, 19),
  // What one check may use (docs/ci.md, "Limits").
  RAILYARD_CI_MAX_PROCESSES: int(1024, 16, 1_000_000),
  RAILYARD_CI_MEMORY_MIB: int(4096, 64, 16_777_216),
  RAILYARD_CI_CPUS: decimal(2, 0, 1024),
  RAILYARD_CI_DISK_MIB: int(4096, 16, 16_777_216),
  RAILYARD_CI_LOG_MIB: int(64, 1, 1_048_576),
  RAILYARD_CI_CGROUP: textOr('auto'),
  // Commit-status streams and archived check logs older than this are swept (docs/operations.md, "Retention"); 0 keeps them.
  RAILYARD_CI_RETENTION_DAYS: int(30, 0, 36_500),
  RAILYARD_CI_RETENTION_SWEEP_MINUTES: int(60, 1, 7 * 24 * 60),
  RAILYARD_ORG_SLUG: textOr('railyard').refine((v) => SLUG.test(v), { message: "must be letters, digits, '.', '_' or '-'" }),
  RAILYARD_TICKET_URL: text.refine((v) => v === undefined || /^https?:\/\/\S*\{id\}\S*$/i.test(v), {
    message: 'must be an http(s) URL holding {id}, e.g. https://acme.atlassian.net/browse/{id}',
  }),
  RAILYARD_PAGE_TOKEN_SECRET: text.refine((v) => v === undefined || v.length >= 16, { message: 'must be at least 16 characters' }),
  // At least one: parsing on the request thread stalled every other request for seconds (issue 25).
  RAILYARD_JUNIT_PARSE_WORKERS: int(1, 1, 16),
  RAILYARD_JUNIT_MAX_QUEUED: int(8, 0, 1000),
  RAILYARD_TEST_HEALTH_SWEEP_MINUTES: int(60, 0, 7 * 24 * 60),
  RAILYARD_TEST_HISTORY_DAYS: int(60, 1, 3650),
  RAILYARD_TEST_HISTORY_MAX_RUNS: int(300, 10, 100_000),
  RAILYARD_LOG_LEVEL: textOr('info'),
  // GitHub's App settings (RAILYARD_GITHUB_APP_ID, …) are parsed by @railyard/github's parseGithubSettings.
  RAILYARD_GITHUB_STICKY_COMMENT: oneOf(['off', 'on']),
  /** Comma-separated CIDRs webhook endpoints may reach besides public addresses (docs/webhooks.md, "Addresses"). */
  RAILYARD_WEBHOOKS_ALLOW_NETWORKS: text,
  /** The first wait after a failed webhook delivery (doubling up to 4 h), and the tries before the endpoint is disabled. */
  RAILYARD_WEBHOOKS_RETRY_MIN_MS: int(30_000, 10, 3_600_000),
  RAILYARD_WEBHOOKS_RETRY_ATTEMPTS: int(15, 1, 100),
  /** Keys that seal webhook signing secrets in the event log: `id:base64key`, comma-separated, the sealing key first (docs/webhooks.md). */
  RAILYARD_WEBHOOKS_SECRET_KEYS: text.transform((v, ctx) => {
    try {
      return webhookSecretKeysOf(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  }),
});

export type RailyardEnv = z.infer<typeof railyardEnvSchema>;

/** Parses the environment once; the first bad variable is named in the error. */
export const parseRailyardEnv = (env: Record<string, string | undefined>): RailyardEnv => {
  const parsed = railyardEnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`${issue?.path.join('.') ?? 'environment'} ${issue?.message ?? 'is not valid'}`);
};
