import { Counter, Gauge } from 'prom-client';
import { railyardRegistry } from '@railyard/observability';

const reapSources = new Set<() => number>();

/** Counts a CI's pending reaps into railyard_engine_ci_reaps_pending until the returned function is called. */
export const watchReaps = (source: () => number): (() => void) => {
  reapSources.add(source);
  return () => reapSources.delete(source);
};

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
  infrastructureErrors: new Counter<'code'>({
    name: 'railyard_engine_infrastructure_errors_total',
    help: 'Checks CI could not judge (CI_CHECK_NOT_STARTED, CI_CHECKOUT_LOST, CI_RUNNER_ERROR, …), by code; retried, never blamed on a PR.',
    labelNames: ['code'],
    registers: [railyardRegistry],
  }),
  runsStuck: new Counter<'code'>({
    name: 'railyard_engine_runs_stuck_total',
    help: 'Test runs reported stuck after their infrastructure retries were used up (TestRunStuck), by code.',
    labelNames: ['code'],
    registers: [railyardRegistry],
  }),
  reapsPending: new Gauge({
    name: 'railyard_engine_ci_reaps_pending',
    help: 'Cancelled test runs whose check processes or checkouts CI is still taking down in the background.',
    registers: [railyardRegistry],
    collect() {
      let n = 0;
      for (const source of reapSources) n += source();
      this.set(n);
    },
  }),
  queuesRepositoryMissing: new Gauge({
    name: 'railyard_engine_queues_repository_missing',
    help: 'Queues whose repository the code host does not have (QueueHostProblemReported REPOSITORY_NOT_FOUND).',
    registers: [railyardRegistry],
  }),
};
