import { Counter, Gauge } from 'prom-client';
import { railyardRegistry } from '@railyard/observability';

/** The engine's own health, per process (docs/metrics.md): failed passes by error code, and queues waiting out a backoff. */
export const engineMetrics = {
  passFailures: new Counter<'code'>({
    name: 'railyard_engine_pass_failures_total',
    help: 'Engine passes over a queue that failed, by error code (REPO_NOT_FOUND, INVALID_INPUT, GIT_FAILED, …).',
    labelNames: ['code'],
    registers: [railyardRegistry],
  }),
  queuesFailing: new Gauge({
    name: 'railyard_engine_queues_failing',
    help: 'Queues whose last engine pass failed (each waits out a capped, jittered backoff before the next).',
    registers: [railyardRegistry],
  }),
  queuesRepositoryMissing: new Gauge({
    name: 'railyard_engine_queues_repository_missing',
    help: 'Queues whose repository the code host does not have (QueueHostProblemReported REPOSITORY_NOT_FOUND).',
    registers: [railyardRegistry],
  }),
};
