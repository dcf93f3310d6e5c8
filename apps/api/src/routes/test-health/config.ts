import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { testHealthLimitsFromEnv } from '@railyard/readmodels';

/** Every test-health setting, read from the environment in one place. */
export interface TestHealthConfig {
  /** The organisation slug test ids are computed with (Trunk's org_url_slug); list requests must name it. */
  orgSlug: string;
  /** HMAC key of page tokens; every API process of one deployment must share it. */
  pageTokenSecret: string;
  /** Base of the html_url fields; when absent the server's own address is used. */
  publicUrl?: string;
  /** Worker threads parsing JUnit; 0 parses on the main thread (tests, tiny installs). */
  parseWorkers: number;
  /** Uploads waiting for a parser beyond this are refused with 503 and Retry-After. */
  maxQueuedParses: number;
  /** Minutes between re-evaluations of the watched tests (time-based recoveries); 0 turns the sweep off. */
  sweepMinutes: number;
  maxRunsPerTest: number;
  retentionDays: number;
}

export const PAGE_TOKEN_SECRET_FILE = 'page-token-secret';

const int = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
  return n;
};

/**
 * RAILYARD_PAGE_TOKEN_SECRET when set; otherwise a secret kept in the data dir (mode 0600), created
 * once, so tokens survive restarts of the embedded server without any setup.
 */
export const pageTokenSecretOf = (raw: string | undefined, dataDir: string): string => {
  if (raw) {
    if (raw.length < 16) throw new Error('RAILYARD_PAGE_TOKEN_SECRET must be at least 16 characters');
    return raw;
  }
  const file = path.join(dataDir, PAGE_TOKEN_SECRET_FILE);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process of this deployment created it first: use theirs, so both accept each other's tokens.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
  return secret;
};

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const testHealthConfigFromEnv = (env: NodeJS.ProcessEnv, dataDir: string): TestHealthConfig => {
  const orgSlug = env.RAILYARD_ORG_SLUG || 'railyard';
  if (!SLUG.test(orgSlug)) throw new Error(`RAILYARD_ORG_SLUG must be letters, digits, '.', '_' or '-', not "${orgSlug}"`);
  const publicUrl = env.RAILYARD_PUBLIC_URL ? env.RAILYARD_PUBLIC_URL.replace(/\/+$/, '') : undefined;
  if (publicUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(publicUrl)) throw new Error('RAILYARD_PUBLIC_URL must be an http(s) URL');
  return {
    orgSlug,
    pageTokenSecret: pageTokenSecretOf(env.RAILYARD_PAGE_TOKEN_SECRET, dataDir),
    ...(publicUrl ? { publicUrl } : {}),
    parseWorkers: int('RAILYARD_JUNIT_PARSE_WORKERS', env.RAILYARD_JUNIT_PARSE_WORKERS, 1, 0, 16),
    maxQueuedParses: int('RAILYARD_JUNIT_MAX_QUEUED', env.RAILYARD_JUNIT_MAX_QUEUED, 8, 0, 1000),
    sweepMinutes: int('RAILYARD_TEST_HEALTH_SWEEP_MINUTES', env.RAILYARD_TEST_HEALTH_SWEEP_MINUTES, 60, 0, 7 * 24 * 60),
    ...testHealthLimitsFromEnv(env),
  };
};
