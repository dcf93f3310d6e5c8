import type { RailyardConfig } from './config';

/**
 * The secrets every API replica must hold alike (docs/security.md, "Secrets in the distributed shape";
 * docs/decisions.md, D187): the API tokens, and the page-token secret, which signs the test-health and
 * dashboard page tokens and is the key of the dashboard sessions. The embedded server keeps generated
 * ones in its data dir; a standalone API on a data dir of its own would generate different ones from
 * its peers, so its tokens, page tokens and sessions would not hold on the other replicas.
 *
 * Answers the variables a standalone API is missing: none when everything is configured, or when the
 * operator opted into data-dir secrets with RAILYARD_SECRETS_FROM_DATA_DIR=on.
 */
export const missingApiSecrets = (
  config: Pick<RailyardConfig, 'apiTokens' | 'apiTokensFile' | 'secretsFromDataDir' | 'testHealth'>,
): string[] => {
  if (config.secretsFromDataDir) return [];
  const missing: string[] = [];
  if (!config.apiTokens && !config.apiTokensFile) missing.push('RAILYARD_API_TOKENS or RAILYARD_API_TOKENS_FILE');
  if (!config.testHealth.pageTokenSecret) missing.push('RAILYARD_PAGE_TOKEN_SECRET');
  return missing;
};

/** Throws, naming every missing variable, when a standalone API would have to make up its secrets. */
export const requireApiSecrets = (config: Parameters<typeof missingApiSecrets>[0]): void => {
  const missing = missingApiSecrets(config);
  if (missing.length === 0) return;
  throw new Error(
    `a standalone API needs ${missing.join(' and ')}, the same on every replica (docs/security.md); ` +
      'RAILYARD_SECRETS_FROM_DATA_DIR=on keeps generated ones in the data dir instead, for API processes that all share one data dir',
  );
};
