import type { QueueEvent } from '@railyard/domain';
import { parseWorkload, simulate, type SimResult } from '@railyard/simulator';

/** A shape of `bench engine overhead`: N PRs, concurrency C, checks of T seconds, a share breaking. */
export interface SimulatedShape {
  count: number;
  concurrency: number;
  checkSeconds: number;
  breakingFraction: number;
}

/**
 * The real engine's bench shape in the simulator (`calibrate`, `flaky-spread`): the given PRs break,
 * `flakeRate` of the runs flake (no test results; drawn per tree and attempt from `seed`, as the real
 * bench draws them), and the engine costs the latency given, in seconds.
 */
export const simulateShape = async (
  shape: SimulatedShape,
  badPrs: readonly number[],
  engine: { runOverheadSeconds: number; reactSeconds: number },
  o: {
    seed?: number;
    flakeRate?: number;
    onEvent?: (event: QueueEvent) => void;
    /** Queue settings over the defaults (flaky-spread's policy comparison). */
    queue?: Record<string, unknown>;
    /** Failing runs upload test results, and a flake fails a test classified flaky. */
    testResults?: boolean;
  } = {},
): Promise<SimResult> =>
  simulate(
    parseWorkload({
      name: `bench-${shape.count}-c${shape.concurrency}`,
      seed: o.seed ?? 1,
      prs: shape.count,
      // Every PR is there at the start, as in the real run (submitted while the queue was paused).
      arrivalsPerHour: 3.6e9,
      arrivals: 'at-start',
      maxWaiting: shape.count,
      warmupMinutes: 0,
      ci: { durationMinutes: shape.checkSeconds / 60, distribution: 'fixed' },
      failureRate: shape.breakingFraction,
      badPrs: [...badPrs],
      flakeRate: o.flakeRate ?? 0,
      // As the real bench's local CI draws them: a seed flakes the same runs in both (flake-draws.ts).
      flakeDraws: 'per-tree',
      engine,
      ...(o.testResults ? { testResults: {} } : {}),
      queue: { ...o.queue, concurrency: shape.concurrency },
      tickMinutes: 1 / 60,
    }),
    o.onEvent ? { onEvent: o.onEvent } : {},
  );
