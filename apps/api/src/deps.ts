import type { RequestHandler } from 'express';
import type { RateLimiter } from './auth/rate-limit';
import type { ForkedRuns } from './github/forked-runs';
import type { BlobStore } from '@railyard/eventstore';
import type { GitHost } from '@railyard/githost';
import type { Logger } from '@railyard/observability';
import type { ReadModelStore } from '@railyard/readmodels';
import type { TokenRegistry } from '@railyard/auth';
import type { QueueCommands } from './queue-commands';
import type { ProjectionHealth } from './readiness/projection-health';

/** Everything the HTTP layer needs, passed in: the app itself opens no connection and reads no env. */
export interface ApiDeps {
  commands: QueueCommands;
  readModels: ReadModelStore;
  /** How current the read models are: reads fall back to the event store and /readyz reports from it. */
  projection: ProjectionHealth;
  gitHost: GitHost;
  blobs: BlobStore;
  tokens: TokenRegistry;
  logger: Logger;
  /** The rate limit (auth/rate-limit.ts), which buildApp puts in front of every route but /healthz; none when absent. */
  limiter?: RateLimiter;
  /** Confirms the workflow run a PR from a fork uploads its impacted targets with (GitHub App); none without GitHub. */
  forkedRuns?: ForkedRuns;
  /** The cap on request-body bytes in flight (http/body-budget.ts), after the limiter; none when absent. */
  bodyBudget?: RequestHandler;
}
