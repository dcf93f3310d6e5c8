import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestHealthSettings } from '@railyard/runtime';

/**
 * Every test-health setting the API runs with: libs/runtime's settings (`config.testHealth`, where each
 * is described), with the page-token secret always present.
 */
export type TestHealthConfig = Omit<TestHealthSettings, 'pageTokenSecret'> & { pageTokenSecret: string };

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

/** The API's test-health configuration: the settings, with the page-token secret kept in the data dir when none is set. */
export const testHealthConfigOf = (settings: TestHealthSettings, dataDir: string): TestHealthConfig => ({
  ...settings,
  pageTokenSecret: pageTokenSecretOf(settings.pageTokenSecret, dataDir),
});
