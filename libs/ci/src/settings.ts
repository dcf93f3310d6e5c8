import * as path from 'node:path';
import type { CheckNetwork, SandboxMode } from './runner/sandbox';

/** What the CI pieces read from the environment, with the embedded defaults. */
export interface CiSettings {
  dataDir: string;
  gitRoot: string;
  /** RAILYARD_PUBLIC_URL: base of the log and PR URLs handed out; unset means "the address the API listens on". */
  publicUrl?: string;
  /** RAILYARD_CI_CONCURRENCY: local checks running at once. */
  concurrency: number;
  /** RAILYARD_CI_KILL_GRACE_MS: SIGTERM → SIGKILL delay for cancelled and timed-out checks. */
  killGraceMs: number;
  /** RAILYARD_CI_SANDBOX: `bwrap` (default) or `off` (development only: checks can read the server's secrets). */
  sandbox?: SandboxMode;
  /** RAILYARD_CI_NETWORK: `none` (default: a loopback of the check's own) or `host`. */
  network?: CheckNetwork;
  /** Files holding secrets that checks must not see even under a system directory (RAILYARD_API_TOKENS_FILE). */
  hiddenPaths?: string[];
}

const oneOf = <T extends string>(name: string, raw: string | undefined, values: readonly T[]): T => {
  const value = (raw ?? '').trim() || values[0];
  if (!values.includes(value as T)) throw new Error(`${name} must be one of ${values.join(', ')}, not "${raw}"`);
  return value as T;
};

const int = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
  return n;
};

export const ciSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): CiSettings => {
  const dataDir = path.resolve(env.RAILYARD_DATA_DIR || './data');
  const publicUrl = env.RAILYARD_PUBLIC_URL?.trim();
  if (publicUrl && !/^https?:\/\/[^\s/]+(\/\S*)?$/i.test(publicUrl))
    throw new Error(`RAILYARD_PUBLIC_URL must be an http(s) URL, not "${publicUrl}"`);
  return {
    dataDir,
    gitRoot: path.resolve(env.RAILYARD_GIT_ROOT || path.join(dataDir, 'git')),
    ...(publicUrl ? { publicUrl: publicUrl.replace(/\/+$/, '') } : {}),
    concurrency: int('RAILYARD_CI_CONCURRENCY', env.RAILYARD_CI_CONCURRENCY, 2, 1, 256),
    killGraceMs: int('RAILYARD_CI_KILL_GRACE_MS', env.RAILYARD_CI_KILL_GRACE_MS, 5000, 0, 600_000),
    sandbox: oneOf('RAILYARD_CI_SANDBOX', env.RAILYARD_CI_SANDBOX, ['bwrap', 'off'] as const),
    network: oneOf('RAILYARD_CI_NETWORK', env.RAILYARD_CI_NETWORK, ['none', 'host'] as const),
    hiddenPaths: env.RAILYARD_API_TOKENS_FILE ? [path.resolve(env.RAILYARD_API_TOKENS_FILE)] : [],
  };
};
