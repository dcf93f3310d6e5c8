import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { readTokensFile } from './tokens-file';

export const TOKEN_FILE = 'api-token';

/** Where the tokens come from: RAILYARD_API_TOKENS (`raw`) or RAILYARD_API_TOKENS_FILE (`file`); loadConfig refuses both. */
export interface TokenSources {
  raw?: string | undefined;
  file?: string | undefined;
}

/**
 * With RAILYARD_API_TOKENS or RAILYARD_API_TOKENS_FILE set, those tokens. Without, one admin token kept
 * in the data dir (mode 0600): created and printed on the first start only, so it is shown once and never logged.
 */
export const loadTokens = (
  sources: TokenSources,
  dataDir: string,
  announce: (line: string) => void,
  warn: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
): TokenRegistry => {
  if (sources.file) return new TokenRegistry(parseTokenList(readTokensFile(sources.file, warn)));
  if (sources.raw) return new TokenRegistry(parseTokenList(sources.raw));
  const file = path.join(dataDir, TOKEN_FILE);
  try {
    return new TokenRegistry(parseTokenList(readFileSync(file, 'utf8').trim()));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  const line = `admin:${secret}:admin`;
  try {
    writeFileSync(file, `${line}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process started at the same moment and wrote its token first: use that one.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return new TokenRegistry(parseTokenList(readFileSync(file, 'utf8').trim()));
    throw err;
  }
  announce(`Railyard created an admin API token. It is shown only this once and kept in ${file}:\n  x-api-token: ${secret}\n`);
  return new TokenRegistry(parseTokenList(line));
};
