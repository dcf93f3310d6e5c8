import { createGithubApp, createWebhookVerifier, githubHostOf, type GithubAppOptions, type GithubSettings } from '@railyard/github';
import type { Logger } from '@railyard/observability';
import type { GithubApiParts } from './index';

/** The API's GitHub parts from parsed settings (`parseGithubSettings` in the entry point). */
export const openGithubApi = async (
  settings: GithubSettings,
  logger: Logger,
  options: { host?: string; app?: Partial<GithubAppOptions> } = {},
): Promise<GithubApiParts> => ({
  app: await createGithubApp({ settings, logger, ...options.app }),
  verifier: await createWebhookVerifier(settings.webhookSecret),
  appId: settings.appId,
  host: options.host ?? githubHostOf(settings.apiUrl),
});
