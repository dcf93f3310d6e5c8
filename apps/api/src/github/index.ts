import type { Router } from 'express';
import type { EventStore } from '@railyard/eventstore';
import { DeliveryLog, type GithubApp, type WebhookVerifier } from '@railyard/github';
import type { Logger } from '@railyard/observability';
import type { QueueCommands } from '../queue-commands';
import { hostChangeWriter } from './host-commands';
import { WebhookHandler } from './webhook-handler';
import { githubWebhookRouter } from './webhook-route';

export { WEBHOOK_PATH } from './webhook-route';

/** What the API needs to take GitHub's webhooks: the App's client, its webhook verifier, and the host name its repositories carry. */
export interface GithubApiParts {
  app: GithubApp;
  verifier: WebhookVerifier;
  appId: number;
  /** `github.com`, or a GitHub Enterprise Server's host name. */
  host: string;
}

export const githubRouter = (
  parts: GithubApiParts,
  deps: { eventStore: EventStore; commands: QueueCommands; logger: Logger; now: () => Date },
): Router => {
  const hostChanges = hostChangeWriter(deps.eventStore, deps.now);
  return githubWebhookRouter({
    verifier: parts.verifier,
    deliveries: new DeliveryLog(deps.eventStore, { now: deps.now }),
    handler: new WebhookHandler({ github: parts.app, commands: deps.commands, hostChanges, logger: deps.logger }),
    hostChanges,
    digest: { host: parts.host, appId: parts.appId },
    logger: deps.logger,
  });
};
export { githubApiOf, openGithubApi } from './open';
