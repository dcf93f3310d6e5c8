import {
  createGithubApp,
  createWebhookVerifier,
  githubHostOf,
  type GithubAppOptions,
  type GithubParts,
  type GithubSettings,
} from '@railyard/github';
import type { Logger } from '@railyard/observability';
import type { GithubApiParts } from './index';

/**
 * The API's GitHub parts over the process's opened App (`openGithub`): the same client, so the
 * webhook route's reads and reactions share the installation's write queue with the code host.
 */
export const githubApiOf = async (github: GithubParts): Promise<GithubApiParts> => ({
  app: github.app,
  verifier: await createWebhookVerifier(github.settings.webhookSecret),
  appId: github.settings.appId,
  host: github.hostName,
});

/** The API's GitHub parts from settings alone, with the client's options (tests shorten its waits). */
export const openGithubApi = async (
  settings: GithubSettings,
  logger: Logger,
  options: { host?: string; app?: Partial<GithubAppOptions> } = {},
): Promise<GithubApiParts> => ({
  app: await createGithubApp({ settings, logger, ...options.app }),
  verifier: await createWebhookVerifier(settings.webhookSecret),
  appId: settings.appId,
  host: options.host ?? settings.host ?? githubHostOf(settings.apiUrl),
});
