import type { Request, Router } from 'express';
import type { TokenRegistry } from '@railyard/auth';
import { repoRefProblems, type RepoRef } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import { PROMETHEUS_CONTENT_TYPE, railyardRegistry, registryText, renderFamilies, type MetricFamily } from '@railyard/observability';
import { queueMetricFamilies, type MetricsStore } from '@railyard/readmodels';
import type { Registry } from 'prom-client';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { operationOf } from '../http/operation';
import { queryParam } from '../openapi/parameters';
import { operationsRouter } from '../http/operations-router';
import { validationError } from '../http/validate';

/** A projection whose lag behind the event store is reported. */
export interface LaggingProjection {
  checkpoint(): Promise<bigint | null>;
}

export interface MetricsRouteOptions {
  metrics: MetricsStore;
  eventStore: EventStore;
  /** Projections by name (e.g. readmodels, metrics): each gets railyard_projection_lag_{events,seconds}. */
  projections: Record<string, LaggingProjection>;
  clock?: { now: () => Date };
  /** The process's own series (HTTP requests, engine actions); railyardRegistry unless a test isolates its own. */
  registry?: Registry;
}

// Counting the lag reads the unprojected events; past this many the count saturates (the seconds still tell).
export const LAG_COUNT_CAP = 10_000;

const single = (req: Request, name: string): string | undefined => {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string')
    throw new ApiError(400, 'VALIDATION_FAILED', `${name} must be given once, as a plain value`, [
      { field: name, message: 'given more than once' },
    ]);
  return v;
};

/** `repo=owner/name&repoHost=host` narrows the scrape to one repository; neither means every repository. */
const repoFilter = (req: Request): RepoRef | undefined => {
  const repo = single(req, 'repo');
  const host = single(req, 'repoHost');
  if (repo === undefined && host === undefined) return undefined;
  if (repo === undefined)
    throw new ApiError(400, 'VALIDATION_FAILED', 'repoHost was given without repo; give both, or neither for every repository', [
      { field: 'repo', message: 'required with repoHost' },
    ]);
  if (!host)
    throw new ApiError(400, 'VALIDATION_FAILED', 'repo must be given together with repoHost (e.g. repoHost=github.com)', [
      { field: 'repoHost', message: 'required with repo' },
    ]);
  const parts = repo.split('/');
  const [owner, name] = parts;
  if (parts.length !== 2 || !owner || !name)
    throw new ApiError(400, 'VALIDATION_FAILED', `repo must be owner/name, got ${JSON.stringify(repo)}`, [
      { field: 'repo', message: 'must be owner/name' },
    ]);
  // The same rules as a queue's repository: a name no queue can have is a mistake, not an empty answer.
  const bad = repoRefProblems({ host, owner, name }).map(({ part, problem }) => ({
    field: part === 'host' ? 'repoHost' : 'repo',
    message: `${part} ${problem}`,
  }));
  if (bad.length > 0) throw validationError(bad);
  return { host, owner, name };
};

const projectionLag = async (
  eventStore: EventStore,
  projections: Record<string, LaggingProjection>,
  nowMs: number,
): Promise<MetricFamily[]> => {
  const head = await eventStore.headPosition();
  const events: { labels: { projection: string }; value: number }[] = [];
  const seconds: { labels: { projection: string }; value: number }[] = [];
  for (const [projection, p] of Object.entries(projections)) {
    const checkpoint = await p.checkpoint();
    const behind = head !== null && (checkpoint === null || checkpoint < head) ? await eventStore.readAll(checkpoint, LAG_COUNT_CAP) : [];
    const oldest = behind[0];
    events.push({ labels: { projection }, value: behind.length });
    seconds.push({ labels: { projection }, value: oldest ? Math.max(0, (nowMs - Date.parse(oldest.recordedAt)) / 1000) : 0 });
  }
  return [
    {
      name: 'railyard_projection_lag_events',
      help: `Events in the store not yet applied to the projection (saturates at ${LAG_COUNT_CAP}).`,
      type: 'gauge',
      samples: events,
    },
    {
      name: 'railyard_projection_lag_seconds',
      help: 'Age of the oldest event not yet applied to the projection; 0 when it is caught up.',
      type: 'gauge',
      samples: seconds,
    },
  ];
};

const operation = operationOf<MetricsRouteOptions & { tokens: TokenRegistry }>();

/**
 * The merge-queue series from the metrics read model (the same on every replica), the projections'
 * lag, and this process's own series, as Prometheus text.
 */
export const metricsOperations = [
  operation({
    method: 'get',
    path: '/v1/getMergeQueueMetrics',
    operationId: 'getMergeQueueMetrics',
    tag: 'Metrics',
    summary: 'Prometheus metrics: the queues, the projections lag, and this process',
    description: 'Give `repo` and `repoHost` together to narrow the queue series to one repository (docs/metrics.md).',
    scope: 'read',
    parameters: [queryParam('repo', 'owner/name', 'acme/widgets'), queryParam('repoHost', 'the host of repo', 'github.com')],
    response: {
      description: 'Prometheus text exposition format 0.0.4',
      mediaType: 'text/plain',
      text: '# HELP mq_depth_current PRs in the queue now.\n# TYPE mq_depth_current gauge\nmq_depth_current{repo="acme/widgets",branch="main"} 3\n',
    },
    errors: [400, 405],
    input: repoFilter,
    handle: async (repo, { deps, res }) => {
      const nowMs = (deps.clock ?? { now: () => new Date() }).now().getTime();
      const docs = await deps.metrics.queues(repo);
      const text =
        renderFamilies([...queueMetricFamilies(docs, nowMs), ...(await projectionLag(deps.eventStore, deps.projections, nowMs))]) +
        (await registryText(deps.registry ?? railyardRegistry));
      // Set by hand and sent with end(): res.send would re-order the parameters, and scrapers match this exact value.
      res.status(200).setHeader('Content-Type', PROMETHEUS_CONTENT_TYPE);
      res.end(text);
    },
  }),
];

/** The metrics endpoint over `deps` and its own stores, for buildApp's routers. */
export const metricsRoutes = (deps: Pick<ApiDeps, 'tokens'>, options: MetricsRouteOptions): Router =>
  operationsRouter(metricsOperations, { ...options, tokens: deps.tokens });
