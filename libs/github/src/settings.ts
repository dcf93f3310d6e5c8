import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The GitHub App's settings, read from a plain object (the process's environment, handed over by
 * the one config module that reads it). Nothing here reads process.env.
 */

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

export interface GithubSettings {
  appId: number;
  /** PEM text of the App's private key. */
  privateKey: string;
  webhookSecret: string;
  /** Without a trailing slash: https://api.github.com, https://ghes.example.com/api/v3, or a fake. */
  apiUrl: string;
  /**
   * The host name in the queue ids of this GitHub's repositories (`github.com/acme/widgets`): the
   * engine sends those repositories to the GitHub adapter. RAILYARD_GITHUB_HOST, else github.com for
   * the public API, else the API URL's host name (a GHES server). Absent: githubHostOf(apiUrl).
   */
  host?: string;
  /**
   * Least time between two writes of one installation (RAILYARD_GITHUB_WRITE_INTERVAL_MS, default
   * 1000 as GitHub asks); a GitHub Enterprise Server without secondary limits, or a fake, may go lower.
   */
  writeIntervalMs?: number;
}

/** github.com for the public API; the server's host name for GitHub Enterprise Server and anything else. */
export const githubHostOf = (apiUrl: string): string => {
  const name = new URL(apiUrl).hostname.toLowerCase();
  return name === 'api.github.com' ? 'github.com' : name;
};

const HOST_NAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;

const KEYS = ['RAILYARD_GITHUB_APP_ID', 'RAILYARD_GITHUB_PRIVATE_KEY', 'RAILYARD_GITHUB_WEBHOOK_SECRET'] as const;

// Environment files often carry a PEM on one line with literal "\n".
const unescapePem = (value: string): string => (value.includes('\\n') ? value.replace(/\\n/g, '\n') : value);

const looksLikePem = (value: string): boolean => value.trimStart().startsWith('-----BEGIN');

/** The PEM itself, or the contents of the file the value names. */
const readPrivateKey = (value: string, readFile: (path: string) => string): string => {
  if (looksLikePem(value)) return unescapePem(value).trim();
  try {
    return readFile(value).trim();
  } catch (err) {
    throw new Error(
      `RAILYARD_GITHUB_PRIVATE_KEY is neither a PEM key nor a readable file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
};

const rawSchema = z.object({
  RAILYARD_GITHUB_APP_ID: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'RAILYARD_GITHUB_APP_ID must be the App id, a positive integer')
    .transform(Number),
  RAILYARD_GITHUB_PRIVATE_KEY: z.string().min(1, 'RAILYARD_GITHUB_PRIVATE_KEY is empty'),
  RAILYARD_GITHUB_WEBHOOK_SECRET: z.string().min(16, 'RAILYARD_GITHUB_WEBHOOK_SECRET must have at least 16 characters'),
  RAILYARD_GITHUB_API_URL: z
    .url({ protocol: /^https?$/, error: 'RAILYARD_GITHUB_API_URL must be an http(s) URL' })
    .optional()
    .transform((url) => (url ?? DEFAULT_GITHUB_API_URL).replace(/\/+$/, '')),
});

/** The zod schema of the settings as they appear in the environment (the private key not yet read). */
export const githubEnvironmentSchema = rawSchema;

export interface ParseOptions {
  /** Reads a key file; tests pass their own. */
  readFile?: (path: string) => string;
}

/**
 * GitHub settings from `env`, or null when none of them is set (GitHub not configured). Some set
 * and others missing, or any invalid, is an error that names them.
 */
export const parseGithubSettings = (env: Record<string, string | undefined>, opts: ParseOptions = {}): GithubSettings | null => {
  const present = (name: string) => env[name] !== undefined && env[name] !== '';
  if (![...KEYS, 'RAILYARD_GITHUB_API_URL', 'RAILYARD_GITHUB_HOST', 'RAILYARD_GITHUB_WRITE_INTERVAL_MS'].some(present)) return null;
  const missing = KEYS.filter((name) => !present(name));
  if (missing.length > 0) throw new Error(`GitHub is partly configured: ${missing.join(', ')} missing`);
  const parsed = rawSchema.safeParse({
    RAILYARD_GITHUB_APP_ID: env.RAILYARD_GITHUB_APP_ID,
    RAILYARD_GITHUB_PRIVATE_KEY: env.RAILYARD_GITHUB_PRIVATE_KEY,
    RAILYARD_GITHUB_WEBHOOK_SECRET: env.RAILYARD_GITHUB_WEBHOOK_SECRET,
    RAILYARD_GITHUB_API_URL: present('RAILYARD_GITHUB_API_URL') ? env.RAILYARD_GITHUB_API_URL : undefined,
  });
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('; '));
  const privateKey = readPrivateKey(parsed.data.RAILYARD_GITHUB_PRIVATE_KEY, opts.readFile ?? ((path) => readFileSync(path, 'utf8')));
  try {
    // Refuse a key that cannot sign now rather than at the first webhook.
    createPrivateKey(privateKey);
  } catch {
    throw new Error('RAILYARD_GITHUB_PRIVATE_KEY does not hold a valid private key');
  }
  const host = present('RAILYARD_GITHUB_HOST')
    ? (env.RAILYARD_GITHUB_HOST as string).toLowerCase()
    : githubHostOf(parsed.data.RAILYARD_GITHUB_API_URL);
  if (!HOST_NAME.test(host)) throw new Error('RAILYARD_GITHUB_HOST must be a host name (github.com, ghes.example.com)');
  const interval = present('RAILYARD_GITHUB_WRITE_INTERVAL_MS') ? Number(env.RAILYARD_GITHUB_WRITE_INTERVAL_MS) : undefined;
  if (interval !== undefined && (!Number.isInteger(interval) || interval < 0 || interval > 60_000))
    throw new Error('RAILYARD_GITHUB_WRITE_INTERVAL_MS must be an integer from 0 to 60000');
  return {
    host,
    ...(interval !== undefined ? { writeIntervalMs: interval } : {}),
    appId: parsed.data.RAILYARD_GITHUB_APP_ID,
    privateKey,
    webhookSecret: parsed.data.RAILYARD_GITHUB_WEBHOOK_SECRET,
    apiUrl: parsed.data.RAILYARD_GITHUB_API_URL,
  };
};
