import type { RequestHandler } from 'express';
import type { BlobStore } from '@railyard/eventstore';
import type { GitHost } from '@railyard/githost';
import type { Logger } from '@railyard/observability';
import type { ReadModelStore } from '@railyard/readmodels';
import type { TokenRegistry } from './auth/tokens';
import type { QueueCommands } from './queue-commands';

/** Everything the HTTP layer needs, passed in: the app itself opens no connection and reads no env. */
export interface ApiDeps {
  commands: QueueCommands;
  readModels: ReadModelStore;
  gitHost: GitHost;
  blobs: BlobStore;
  tokens: TokenRegistry;
  logger: Logger;
  /** Per-token rate limit, run right after authentication (see auth/rate-limit.ts); none when absent. */
  limiter?: RequestHandler;
}
