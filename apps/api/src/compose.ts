import type { Express } from 'express';
import { CommitChecker } from '@railyard/ci';
import type { BlobStore, EventStore } from '@railyard/eventstore';
import type { CommitStatusStore, GitHost } from '@railyard/githost';
import type { Logger } from '@railyard/observability';
import type { MetricsStore, ReadModelStore, TestHealthReadModels } from '@railyard/readmodels';
import { buildApp } from './app';
import { rateLimit } from './auth/rate-limit';
import { bodyBudget } from './http/body-budget';
import { BODY_LIMIT } from './http/json-body';
import type { TokenRegistry } from '@railyard/auth';
import { ciPageRouters, ciRouters } from './ci/routes';
import { githubRouter, type GithubApiParts } from './github';
import { forkedRunsOf } from './github/forked-runs';
import { QueueCommands } from './queue-commands';
import { inProcessProjector, ProjectionHealth, type ProjectorPresence } from './readiness/projection-health';
import { createHmac } from 'node:crypto';
import { dashboardRouter } from './dashboard/routes';
import { Sessions } from './dashboard/session';
import { blobRevocations } from './dashboard/session-revocations';
import { operationsRouter } from './http/operations-router';
import { historyOperations } from './routes/history';
import { metricsRoutes } from './routes/metrics';
import { createTestHealth, type TestHealth } from './test-health';
import type { TestHealthConfig } from './test-health/config';
import { webhookOperations, type WebhookApiParts } from './routes/webhooks';

export const DEFAULT_PROJECTION_MAX_LAG_MS = 10_000;

/** The opened adapters and settings an API process is made of; the embedded and distributed shapes differ only in these. */
export interface ApiParts {
  eventStore: EventStore;
  blobs: BlobStore;
  readModels: ReadModelStore;
  metrics: MetricsStore;
  testHealthStore: TestHealthReadModels;
  testHealthConfig: TestHealthConfig;
  gitHost: GitHost;
  statuses: CommitStatusStore;
  tokens: TokenRegistry;
  logger: Logger;
  gitRoot: string;
  dataDir: string;
  readYourWritesTimeoutMs: number;
  /** Per API token (0: off); see auth/rate-limit.ts. */
  rateLimitPerSecond: number;
  /** Failed authentications per second per source address (0: off); see auth/rate-limit.ts. */
  rateLimitUnauthenticatedPerSecond: number;
  /** Request-body bytes held at once; see http/body-budget.ts. */
  maxBodyBytesInFlight: number;
  /** express's `trust proxy` (RAILYARD_TRUST_PROXY): whose X-Forwarded-Proto makes a request count as TLS. */
  trustProxy?: number | string;
  /** RAILYARD_SECURE_COOKIES: `always` sets Secure on every dashboard cookie; `auto` (the default) on TLS requests. */
  secureCookies?: 'auto' | 'always';
  /** RAILYARD_DASHBOARD_OUTCOMES_HOURS: how far back the queue page lists outcomes (default 24). */
  dashboardOutcomesHours?: number;
  publicUrl?: string;
  clock?: { now: () => Date };
  /** GitHub App: webhooks at /github/webhooks (docs/github.md); absent when GitHub is not configured. */
  github?: GithubApiParts;
  /** Who keeps the read models; the projector lease in the distributed shape, this process (the default) when embedded. */
  projector?: ProjectorPresence;
  /** RAILYARD_PROJECTION_MAX_LAG_MS: over it /readyz fails and writes answer 503. Default 10 s. */
  projectionMaxLagMs?: number;
  /** How long reads reuse the last projection status (readiness/projection-health.ts); tests use 0. */
  projectionReadCacheMs?: number;
  /** Tests set 0 so a write sees a projector stop at once (ProjectionHealth.writeCacheMs). */
  projectionWriteCacheMs?: number;
  /** Outgoing webhooks' endpoints and delivery log (docs/webhooks.md); their operations answer 503 without them. */
  webhooks?: WebhookApiParts;
}

export interface ComposedApi {
  app: Express;
  testHealth: TestHealth;
  /** The address the process ended up listening on (port 0 in tests), for links it hands out. */
  setSelfUrl(url: string): void;
}

/** Every route of /v1 and the CI pages over the given parts: the one place the API is assembled. */
export const composeApi = (p: ApiParts): ComposedApi => {
  let selfUrl = '';
  const clock = p.clock ? { clock: p.clock } : {};
  const projection = new ProjectionHealth({
    eventStore: p.eventStore,
    readModels: p.readModels,
    presence: p.projector ?? inProcessProjector,
    maxLagMs: p.projectionMaxLagMs ?? DEFAULT_PROJECTION_MAX_LAG_MS,
    ...(p.projectionReadCacheMs !== undefined ? { readCacheMs: p.projectionReadCacheMs } : {}),
    ...(p.projectionWriteCacheMs !== undefined ? { writeCacheMs: p.projectionWriteCacheMs } : {}),
  });
  const commands = new QueueCommands(p.eventStore, p.readModels, p.logger, {
    clock: p.clock ?? { now: () => new Date() },
    readYourWritesTimeoutMs: p.readYourWritesTimeoutMs,
    gate: () => projection.assertWritable(),
  });
  const deps = {
    commands,
    readModels: p.readModels,
    projection,
    gitHost: p.gitHost,
    blobs: p.blobs,
    tokens: p.tokens,
    logger: p.logger,
    ...(p.github ? { forkedRuns: forkedRunsOf(p.github) } : {}),
    limiter: rateLimit({ perToken: p.rateLimitPerSecond, perAddress: p.rateLimitUnauthenticatedPerSecond, tokens: p.tokens }),
    bodyBudget: bodyBudget({ maxBytesInFlight: p.maxBodyBytesInFlight, maxBodyBytes: BODY_LIMIT }),
  };
  const testHealth = createTestHealth({
    eventStore: p.eventStore,
    blobs: p.blobs,
    store: p.testHealthStore,
    tokens: p.tokens,
    logger: p.logger,
    gitRoot: p.gitRoot,
    ...(p.github ? { github: { host: p.github.host, app: p.github.app } } : {}),
    config: p.testHealthConfig,
    readYourWritesTimeoutMs: p.readYourWritesTimeoutMs,
    serverUrl: () => selfUrl,
    ...clock,
  });
  // Derived from the page-token secret, which every replica shares (RAILYARD_PAGE_TOKEN_SECRET or the data dir):
  // a session signed by one replica is good on all of them and survives a restart; so are sign-outs, kept
  // in the blob store the replicas share.
  const sessions = new Sessions(
    p.tokens,
    createHmac('sha256', p.testHealthConfig.pageTokenSecret).update('dashboard-session').digest('base64url'),
    { revocations: blobRevocations(p.blobs), secureCookies: p.secureCookies ?? 'auto' },
  );
  const ciHttp = {
    statuses: p.statuses,
    commits: new CommitChecker(p.gitRoot),
    dataDir: p.dataDir,
    logs: p.blobs,
    ...(p.publicUrl ? { publicUrl: p.publicUrl } : {}),
    selfUrl: () => selfUrl,
    sessions,
  };
  const routers = [
    metricsRoutes(deps, {
      metrics: p.metrics,
      eventStore: p.eventStore,
      projections: { readmodels: p.readModels, metrics: p.metrics },
      ...clock,
    }),
    operationsRouter(historyOperations, { tokens: p.tokens, eventStore: p.eventStore }),
    operationsRouter(webhookOperations, { tokens: p.tokens, ...(p.webhooks ? { webhooks: p.webhooks } : {}) }),
    testHealth.router,
    ...ciRouters(deps, ciHttp),
  ];
  const app = buildApp(
    deps,
    routers,
    [
      ...ciPageRouters(deps, ciHttp),
      dashboardRouter(deps, {
        eventStore: p.eventStore,
        metrics: p.metrics,
        testHealthStore: p.testHealthStore,
        pageTokenSecret: p.testHealthConfig.pageTokenSecret,
        sessions,
        outcomesWindowHours: p.dashboardOutcomesHours ?? 24,
        clock: p.clock ?? { now: () => new Date() },
        ...(p.webhooks ? { webhooks: p.webhooks } : {}),
      }),
    ],
    p.github
      ? [
          githubRouter(p.github, {
            eventStore: p.eventStore,
            commands,
            logger: p.logger,
            now: () => (p.clock ?? { now: () => new Date() }).now(),
          }),
        ]
      : [],
  );
  // Read per request by req.secure (the Secure flag of the dashboard's cookies) and req.ip.
  if (p.trustProxy !== undefined) app.set('trust proxy', p.trustProxy);
  return {
    app,
    testHealth,
    setSelfUrl: (url) => {
      selfUrl = url;
    },
  };
};
