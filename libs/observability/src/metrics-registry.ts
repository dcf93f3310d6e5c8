import { Histogram, Registry } from 'prom-client';

/**
 * What one process observes about itself (request latencies, engine actions). The merge
 * queue's own numbers are not here: they come from the projected metrics read model, so that every
 * API replica answers a scrape with the same values.
 */
export const railyardRegistry = new Registry();

// Engine actions span a local git merge (milliseconds) to a CI trigger or a push to a busy host (seconds).
const ENGINE_ACTION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type EngineActionOutcome = 'ok' | 'error';

export const railyardMetrics = {
  registry: railyardRegistry,
  /** Observed by the merge engine around each action it carries out (build test branch, trigger CI, merge, …). */
  engineActionSeconds: new Histogram<'action' | 'outcome'>({
    name: 'railyard_engine_action_duration_seconds',
    help: 'Time the merge engine took to carry out one planned action, by action and outcome (ok, error).',
    labelNames: ['action', 'outcome'],
    buckets: ENGINE_ACTION_BUCKETS,
    registers: [railyardRegistry],
  }),
  /**
   * Observed by the merge engine for each hop from a pass's wake-up (a CI status, an API event, a
   * tick) to the next check: `decided` (the planner acted), `merge_landed`, `branch_built`, `check_started`.
   */
  engineHopSeconds: new Histogram<'hop'>({
    name: 'railyard_engine_hop_seconds',
    help: 'Seconds from the merge engine waking up for a queue to each hop towards the next check: decided, merge_landed, branch_built, check_started.',
    labelNames: ['hop'],
    buckets: ENGINE_ACTION_BUCKETS,
    registers: [railyardRegistry],
  }),
  /** Observed by the API's request middleware; `route` is the route template, never the raw URL. */
  httpRequestSeconds: new Histogram<'method' | 'route' | 'status'>({
    name: 'railyard_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers: [railyardRegistry],
  }),
};

/**
 * Runs one engine action and observes its duration with outcome ok or error; the action's result
 * or error passes through unchanged.
 */
export const timeEngineAction = async <T>(action: string, run: () => Promise<T>): Promise<T> => {
  const end = railyardMetrics.engineActionSeconds.startTimer({ action });
  try {
    const result = await run();
    end({ outcome: 'ok' });
    return result;
  } catch (err) {
    end({ outcome: 'error' });
    throw err;
  }
};
