import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Every test-health setting the API runs with. */
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

/** Plain test-health settings as libs/runtime's loadConfig works them out (`config.testHealth`). */
export type TestHealthSettings = Omit<TestHealthConfig, 'pageTokenSecret'> & { pageTokenSecret?: string };

/** The API's test-health configuration: the settings, with the page-token secret kept in the data dir when none is set. */
export const testHealthConfigOf = (settings: TestHealthSettings, dataDir: string): TestHealthConfig => ({
  ...settings,
  pageTokenSecret: pageTokenSecretOf(settings.pageTokenSecret, dataDir),
});
