import { railyardEnvSchema } from './env';

/** RAILYARD_ variables read outside railyardEnvSchema: the CLI's, the GitHub App's, a check's own environment, the tests'. */
const READ_ELSEWHERE = new Set([
  'RAILYARD_URL',
  'RAILYARD_TOKEN',
  'RAILYARD_API_URL',
  'RAILYARD_API_TOKEN',
  'RAILYARD_CONFIG_FILE',
  'RAILYARD_CLI_VERSION',
  'RAILYARD_CI',
  'RAILYARD_CHECK',
  'RAILYARD_REPO',
  'RAILYARD_SHA',
  'RAILYARD_BRANCH',
  'RAILYARD_TEST_RUN_ID',
]);
const READ_ELSEWHERE_PREFIXES = ['RAILYARD_GITHUB_', 'RAILYARD_TEST_'];

/** Settings that are gone, with what replaced them: an upgrade that keeps one should hear it does nothing now. */
export const RETIRED_SETTINGS: Readonly<Record<string, string>> = {
  RAILYARD_ENGINE_THREAD: 'the embedded engine runs on the API thread only (docs/decisions.md D331)',
  RAILYARD_ENGINE_THREAD_NICENESS: 'checks are niced by RAILYARD_CI_NICENESS (D330)',
};

export interface IgnoredSetting {
  name: string;
  why: string;
}

/**
 * RAILYARD_ variables set in `env` that no Railyard process reads: retired ones, and names no
 * setting has (a typo leaves the default in force without a word otherwise). Names only, never values.
 */
export const ignoredSettings = (env: Record<string, string | undefined>): IgnoredSetting[] => {
  const known = new Set(Object.keys(railyardEnvSchema.shape));
  return Object.keys(env)
    .filter((name) => name.startsWith('RAILYARD_') && env[name] !== undefined)
    .filter((name) => !known.has(name) && !READ_ELSEWHERE.has(name) && !READ_ELSEWHERE_PREFIXES.some((p) => name.startsWith(p)))
    .sort()
    .map((name) => ({ name, why: RETIRED_SETTINGS[name] ?? 'no setting has this name (see .env.example)' }));
};
