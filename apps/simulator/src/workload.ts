import { z } from 'zod';
import { DEFAULT_SETTINGS, DIRECT_MERGE_MODES, MAX_FLAKE_RETRIES, OPTIMIZATION_MODES, QUEUE_MODES } from '@railyard/domain';

const probability = z.number().min(0).max(1);
const positiveInt = z.number().int().min(1);

/** The queue settings a workload may set; the domain validates the values as updateQueue would. */
const queueSettings = z
  .object({
    mode: z.enum(QUEUE_MODES),
    concurrency: positiveInt,
    bisectionConcurrency: positiveInt,
    testingTimeoutMinutes: positiveInt,
    pendingFailureDepth: z.number().int().min(0),
    canOptimisticallyMerge: z.boolean(),
    batch: z.boolean(),
    batchingMinSize: positiveInt,
    batchingMaxSize: positiveInt,
    batchingMaxWaitTimeMinutes: positiveInt,
    optimizationMode: z.enum(OPTIMIZATION_MODES),
    directMergeMode: z.enum(DIRECT_MERGE_MODES),
    flakeRetries: z.number().int().min(0).max(MAX_FLAKE_RETRIES),
    flakeRetryConcurrency: z.number().int().min(0),
    unknownFailuresHoldPlace: z.boolean(),
  })
  .partial()
  .strict();

export const workloadSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    seed: z.number().int().default(1),
    /** PRs submitted in all; the run ends once every one of them is terminal. */
    prs: positiveInt,
    /** Poisson arrival rate. Set above the queue's capacity so the queue stays saturated. */
    arrivalsPerHour: z.number().positive(),
    /**
     * `poisson` at `arrivalsPerHour`; `at-start`: every PR is submitted at minute 0, before the queue
     * plans, as the real bench opens its PRs while the queue is paused (`bench calibrate`).
     */
    arrivals: z.enum(['poisson', 'at-start']).default('poisson'),
    /** Arrivals that find this many PRs waiting to start are held back until one starts (see docs/simulator.md). */
    maxWaiting: positiveInt.optional(),
    /** Merges before this minute are not measured: the pipeline is still filling. */
    warmupMinutes: z.number().min(0).default(240),
    ci: z
      .object({
        durationMinutes: z.number().positive(),
        distribution: z.enum(['fixed', 'lognormal']).default('fixed'),
        /** Lognormal shape: the standard deviation of log(duration); durationMinutes is the median. */
        sigma: z.number().min(0).max(3).default(0.25),
      })
      .strict(),
    /** p: the chance a PR is bad, so that every run containing it fails. */
    failureRate: probability,
    /** The bad PRs by number, instead of drawing them with `failureRate` (bench calibrate replays a real run's). */
    badPrs: z.array(positiveInt).optional(),
    /**
     * The engine's own latency around each run, as measured on the real engine (bench calibrate):
     * `runOverheadSeconds` is added to every run between its start and its verdict (check-out,
     * sandbox, status), `reactSeconds` between a verdict and the engine acting on it (merge, next
     * test branch). Zero: an engine that costs nothing, the bound's assumption.
     */
    engine: z
      .object({ runOverheadSeconds: z.number().min(0).default(0), reactSeconds: z.number().min(0).default(0) })
      .strict()
      .default({ runOverheadSeconds: 0, reactSeconds: 0 }),
    /** The chance a run fails although every PR in it is good. */
    flakeRate: probability.default(0),
    /**
     * How flakes are drawn: `stream`, one draw per run in trigger order (the workloads' figures); or
     * `per-tree`, per (tested PRs, attempt on them) from the seed, as `bench engine overhead`'s local CI
     * draws them, so a seed flakes the same runs in both (flake-draws.ts; `bench calibrate`).
     */
    flakeDraws: z.enum(['stream', 'per-tree']).default('stream'),
    /** The chance a run containing a bad PR passes anyway (a test that misses the breakage). */
    missRate: probability.default(0),
    conflicts: z
      .object({
        /** The chance a PR no longer applies on the target branch at all. */
        withBase: probability.default(0),
        /** The chance a PR conflicts with one of the `window` PRs submitted just before it. */
        withEarlier: probability.default(0),
        window: positiveInt.default(8),
      })
      .strict()
      .default({ withBase: 0, withEarlier: 0, window: 8 }),
    /**
     * Per-test results (docs/simulator.md, Test health): each failing run uploads which tests failed,
     * and the test-health service's view of them reaches the planner. A bad PR fails a healthy test
     * of its own; a flake fails a quarantined test (`quarantined`), a test classified flaky
     * (`knownFlaky`), or else a test still classified healthy (a flake nobody has seen yet).
     * Absent: no results are uploaded, every failure is of unknown kind.
     */
    testResults: z
      .object({
        quarantined: probability.default(0),
        knownFlaky: probability.default(1),
      })
      .strict()
      .refine((t) => t.quarantined + t.knownFlaky <= 1, { message: 'quarantined + knownFlaky must not exceed 1' })
      .optional(),
    /** Impacted targets (parallel mode): each PR touches one area, a cross-cutting one several or all. */
    areas: z
      .object({
        count: positiveInt,
        crossCutting: probability.default(0),
        crossCuttingAreas: z.union([z.number().int().min(2), z.literal('all')]).default(2),
        /** Targets named per area; more names make bigger uploads without changing the overlap. */
        targetsPerArea: positiveInt.default(1),
      })
      .strict()
      .optional(),
    /** Share of PRs submitted at each non-default priority; the rest are medium. */
    priorities: z.object({ urgent: probability, high: probability, low: probability }).partial().strict().default({}),
    queue: queueSettings.default({}),
    /** How often the simulated engine looks at the queue without an event (timeouts, batch waits). */
    tickMinutes: z.number().positive().default(1),
    /** Hard stop of simulated time; PRs still queued then are reported as unfinished. */
    maxHours: z
      .number()
      .positive()
      .default(24 * 365),
  })
  .strict()
  .superRefine((w, ctx) => {
    const shares = Object.values(w.priorities).reduce((a, b) => a + b, 0);
    if (shares > 1) ctx.addIssue({ code: 'custom', path: ['priorities'], message: 'priority shares add up to more than 1' });
    if (w.queue.mode === 'parallel' && !w.areas)
      ctx.addIssue({ code: 'custom', path: ['areas'], message: 'a parallel-mode workload needs areas' });
    if (w.areas && typeof w.areas.crossCuttingAreas === 'number' && w.areas.crossCuttingAreas > w.areas.count)
      ctx.addIssue({
        code: 'custom',
        path: ['areas', 'crossCuttingAreas'],
        message: 'a cross-cutting PR cannot touch more areas than exist',
      });
  });

export type Workload = z.output<typeof workloadSchema>;
export type WorkloadInput = z.input<typeof workloadSchema>;

export class WorkloadError extends Error {
  override readonly name = 'WorkloadError';
}

/** Parses a workload; the error names every bad field with its path. */
export const parseWorkload = (raw: unknown, source = 'workload'): Workload => {
  const result = workloadSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`);
  throw new WorkloadError(`${source}: ${problems.join('; ')}`);
};

/** The default backlog kept waiting: enough to fill every slot twice, batches included. */
export const defaultMaxWaiting = (w: Workload): number => {
  const concurrency = w.queue.concurrency ?? DEFAULT_SETTINGS.concurrency;
  const batch = (w.queue.batch ?? DEFAULT_SETTINGS.batch) ? (w.queue.batchingMinSize ?? DEFAULT_SETTINGS.batchingMinSize) : 1;
  return Math.max(20, 2 * concurrency * batch);
};
