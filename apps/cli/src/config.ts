/**
 * The CLI's own settings, read from the environment here and nowhere else in apps/cli. Flags win over
 * these. RAILYARD_API_URL and RAILYARD_API_TOKEN are the names the first CLI commands used; they are
 * still read so existing CI jobs keep working.
 */
export interface CliSettings {
  url?: string;
  token?: string;
  /** The test-health organisation slug (RAILYARD_ORG_SLUG), for the flaky-test listings. */
  orgSlug?: string;
  /** The branch a CI job runs for, from the CI's own variables, for `tests upload`. */
  ciBranch?: string;
}

export const CI_BRANCH_VARIABLES = ['GITHUB_HEAD_REF', 'GITHUB_REF_NAME', 'BUILDKITE_BRANCH', 'CI_COMMIT_REF_NAME', 'BRANCH_NAME'] as const;

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

export const cliSettingsFromEnv = (env: NodeJS.ProcessEnv): CliSettings => {
  const settings: CliSettings = {};
  const url = nonEmpty(env.RAILYARD_URL) ?? nonEmpty(env.RAILYARD_API_URL);
  const token = nonEmpty(env.RAILYARD_TOKEN) ?? nonEmpty(env.RAILYARD_API_TOKEN);
  const orgSlug = nonEmpty(env.RAILYARD_ORG_SLUG);
  const ciBranch = CI_BRANCH_VARIABLES.map((v) => nonEmpty(env[v])).find((b) => b !== undefined);
  if (url) settings.url = url;
  if (token) settings.token = token;
  if (orgSlug) settings.orgSlug = orgSlug;
  if (ciBranch) settings.ciBranch = ciBranch;
  return settings;
};
