import { breakingPrs, idealRounds } from './engine';
import type { QueueEvent } from '@railyard/domain';
import { runsOf } from './support/run-counts';
import { positiveIntFromEnv } from './support/settings';
import { simulateShape } from './support/simulated-shape';

/**
 * `npm run bench -- flaky-spread [N ...]`: issue 26's flaky shape (C 4, T 3 s, 10% of PRs break,
 * 10% of runs flake, no test results) in the simulator over many seeds, with the engine latency
 * the real engine measured (`bench engine overhead`: run overhead and reaction, in seconds). One
 * real run of 40 PRs is one draw of its flakes (the same draw as the simulator's for its seed:
 * `bench calibrate` compares them); this prints how the ideal/actual ratio and the CI runs per merge
 * over the flake-free run spread over seeds, for each queue length N (default 40 and 400).
 *
 *   BENCH_FLAKY_SPREAD_SEEDS     seeds per length (100)
 *   BENCH_FLAKY_SPREAD_OVERHEAD  run overhead, ms (95)
 *   BENCH_FLAKY_SPREAD_REACT     reaction, ms (60)
 *   BENCH_FLAKY_SPREAD_QUEUE     queue settings over the defaults, as JSON (e.g. {"flakeRetries":2}),
 *                                for both runs of a seed: what another policy costs, side by side
 *   BENCH_FLAKY_SPREAD_RESULTS   1: failing runs upload test results (a flake fails a test classified flaky)
 */
const CONCURRENCY = 4;
const CHECK_SECONDS = 3;
const round = (n: number): number => Math.round(n * 1000) / 1000;

interface Policy {
  queue: Record<string, unknown>;
  testResults: boolean;
}

export const policyFromEnv = (env: NodeJS.ProcessEnv = process.env): Policy => {
  const raw = env.BENCH_FLAKY_SPREAD_QUEUE ?? '{}';
  const queue: unknown = JSON.parse(raw);
  if (typeof queue !== 'object' || queue === null || Array.isArray(queue))
    throw new Error(`BENCH_FLAKY_SPREAD_QUEUE must be a JSON object of queue settings, not ${raw}`);
  return { queue: queue as Record<string, unknown>, testResults: env.BENCH_FLAKY_SPREAD_RESULTS === '1' };
};

const ratioOf = async (
  count: number,
  seed: number,
  flakeRate: number,
  engine: { runOverheadSeconds: number; reactSeconds: number },
  policy: Policy,
) => {
  const bad = breakingPrs(count, 0.1);
  const shape = { count, concurrency: CONCURRENCY, checkSeconds: CHECK_SECONDS, breakingFraction: 0.1 };
  const events: QueueEvent[] = [];
  const r = await simulateShape(shape, [...bad], engine, { seed, flakeRate, onEvent: (e) => events.push(e), ...policy });
  return {
    ratio: (idealRounds(count, CONCURRENCY, bad) * CHECK_SECONDS) / r.simulatedSeconds,
    innocent: r.innocentEjections,
    runsPerMerge: runsOf(events, bad).runsPerMerge,
  };
};

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] as number;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function* run(args: string[]): AsyncIterable<object> {
  const seeds = positiveIntFromEnv('BENCH_FLAKY_SPREAD_SEEDS', 100);
  const engine = {
    runOverheadSeconds: positiveIntFromEnv('BENCH_FLAKY_SPREAD_OVERHEAD', 95) / 1000,
    reactSeconds: positiveIntFromEnv('BENCH_FLAKY_SPREAD_REACT', 60) / 1000,
  };
  const policy = policyFromEnv();
  const lengths = args.length > 0 ? args.map(Number) : [40, 400];
  if (lengths.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`queue lengths are positive integers; got ${args.join(' ')}`);
  for (const count of lengths) {
    const free: number[] = [];
    const flaky: number[] = [];
    // The flaky run's CI runs per merge over the flake-free run's, seed by seed (issue 26: within +10%).
    const runsOver: number[] = [];
    let innocent = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      const ff = await ratioOf(count, seed, 0, engine, policy);
      free.push(ff.ratio);
      const f = await ratioOf(count, seed, 0.1, engine, policy);
      flaky.push(f.ratio);
      runsOver.push(f.runsPerMerge / ff.runsPerMerge);
      innocent += f.innocent;
    }
    yield {
      name: 'flaky-spread',
      prs: count,
      seeds,
      engine,
      ...(Object.keys(policy.queue).length > 0 ? { queue: policy.queue } : {}),
      ...(policy.testResults ? { testResults: true } : {}),
      flakeFree: { mean: round(mean(free)), min: round(Math.min(...free)) },
      flaky: { mean: round(mean(flaky)), p10: round(quantile(flaky, 0.1)), min: round(Math.min(...flaky)) },
      flakySeedsAtLeast085: round(flaky.filter((r) => r >= 0.85).length / seeds),
      runsPerMergeOverFlakeFree: { mean: round(mean(runsOver)), p90: round(quantile(runsOver, 0.9)) },
      flakySeedsWithin10PercentRuns: round(runsOver.filter((r) => r <= 1.1).length / seeds),
      innocentEjections: innocent,
    };
  }
}
