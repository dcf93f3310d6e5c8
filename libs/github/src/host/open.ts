import type { Registry } from 'prom-client';
import { CheckRunPublisher, type CheckRunPublisherOptions } from '../checks/check-run-publisher';
import { createGithubApp, type GithubApp, type GithubLogger } from '../github-app';
import { githubHostOf, type GithubSettings } from '../settings';
import { GithubCodeHost } from './code-host';
import { GithubCi } from './github-ci';

/** The GitHub App with its code host and CI, as a process composes them (engine, API, embedded server). */
export interface GithubParts {
  settings: GithubSettings;
  /** The host name its repositories carry in queue ids. */
  hostName: string;
  app: GithubApp;
  host: GithubCodeHost;
  ci: GithubCi;
  close(): Promise<void>;
}

export const openGithub = async (
  settings: GithubSettings,
  opts: { logger?: GithubLogger; registry?: Registry } = {},
): Promise<GithubParts> => {
  const app = await createGithubApp({
    settings,
    ...opts,
    ...(settings.writeIntervalMs !== undefined ? { writeMinTimeMs: settings.writeIntervalMs } : {}),
  });
  const hostName = settings.host ?? githubHostOf(settings.apiUrl);
  const host = new GithubCodeHost({ app, appId: settings.appId, host: hostName });
  const ci = new GithubCi({ host });
  return {
    settings,
    hostName,
    app,
    host,
    ci,
    close: async () => {
      await ci.close();
      await host.close();
    },
  };
};

/** The check-run publisher of a process's GitHub App: the App, its host name and id come from the parts. */
export const checkRunPublisherOf = (
  github: GithubParts,
  options: Omit<CheckRunPublisherOptions, 'github' | 'host' | 'appId'>,
): CheckRunPublisher => new CheckRunPublisher({ ...options, github: github.app, host: github.hostName, appId: github.settings.appId });
