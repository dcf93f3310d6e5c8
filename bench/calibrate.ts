import { writeFileSync } from 'node:fs';
import type { QueueEvent } from '@railyard/domain';
import { engineOverhead, type OverheadShape } from './engine';
import { runsOf } from './support/run-counts';
import { simulateShape } from './support/simulated-shape';

/**
 * `npm run bench -- calibrate [N,C,T,fraction[,flaky,seed] ...]`: the same workload on the real engine
 * (real git, the local CI, checks of T seconds) and in the simulator, which replays the real run's bad
 * PRs and takes the engine latency measured in that run (support/engine-latency.ts). Prints both
 * merges per hour and their ratio; the simulator is calibrated where the ratio is within 10% of 1. The
 * simulator is also run with zero latency, which is what its bound assumes. With `flaky` (a share of
 * check runs) and `seed`, both draw the same flakes for the same trees (flake-draws.ts), so a seed
 * compares them run by run; `BENCH_CALIBRATE_SIM_EVENTS` names a file for the simulated run's events,
 * beside the real run's `BENCH_ENGINE_EVENTS`.
 * Default shapes: 40 PRs, concurrency 4, 3 s checks, 10% breaking; and 24, 2, 2 s, 10%.
 */
const DEFAULT_SHAPES = ['40,4,3,0.1', '24,2,2,0.1'];
const progress = (line: string): void => void process.stderr.write(`[bench calibrate] ${line}\n`);
const round = (n: number, d = 3): number => Math.round(n * 10 ** d) / 10 ** d;

export const parseShape = (arg: string): OverheadShape => {
  const fields = arg.split(',').map(Number);
  const [count, concurrency, checkSeconds, breakingFraction, fraction, seed] = fields;
  const shape = { count, concurrency, checkSeconds, breakingFraction } as OverheadShape;
  const wrong =
    (fields.length !== 4 && fields.length !== 6) ||
    fields.some((v) => !Number.isFinite(v) || v < 0) ||
    (fraction !== undefined && fraction > 1) ||
    (seed !== undefined && !Number.isInteger(seed));
  if (wrong) throw new Error(`a shape is N,C,T,fraction or N,C,T,fraction,flaky,seed (e.g. 40,4,3,0.1,0.1,3); got ${JSON.stringify(arg)}`);
  return fraction !== undefined && seed !== undefined && fraction > 0 ? { ...shape, flaky: { fraction, seed } } : shape;
};

export async function* run(args: string[]): AsyncIterable<object> {
  for (const shape of (args.length > 0 ? args : DEFAULT_SHAPES).map(parseShape)) {
    const flakes = shape.flaky ? `, ${shape.flaky.fraction * 100}% of runs flaky (seed ${shape.flaky.seed})` : '';
    progress(`real engine: ${shape.count} PRs, concurrency ${shape.concurrency}, ${shape.checkSeconds} s checks${flakes}`);
    const real = await engineOverhead(shape);
    const draws = shape.flaky ? { seed: shape.flaky.seed, flakeRate: shape.flaky.fraction } : {};
    const ideal = await simulateShape(shape, real.breakingPrs, { runOverheadSeconds: 0, reactSeconds: 0 }, draws);
    const { runOverheadSeconds, reactSeconds } = real.latency;
    const events: QueueEvent[] = [];
    const modelled = await simulateShape(
      shape,
      real.breakingPrs,
      { runOverheadSeconds, reactSeconds },
      { ...draws, onEvent: (e) => events.push(e) },
    );
    const simulated = runsOf(events, new Set(real.breakingPrs));
    if (process.env.BENCH_CALIBRATE_SIM_EVENTS) writeFileSync(process.env.BENCH_CALIBRATE_SIM_EVENTS, JSON.stringify(events));
    const perHour = (merged: number, seconds: number): number => round((merged / seconds) * 3600, 1);
    const realPerHour = perHour(real.merged, real.seconds);
    const simulatedPerHour = perHour(modelled.merged, modelled.simulatedSeconds);
    // Simulated over real merges per hour: 1 is a simulator that predicts the engine exactly.
    const ratio = simulatedPerHour / realPerHour;
    yield {
      name: 'calibrate',
      prs: shape.count,
      concurrency: shape.concurrency,
      checkSeconds: shape.checkSeconds,
      breaking: real.breakingPrs.length,
      ...(shape.flaky ? { flaky: shape.flaky.fraction, seed: shape.flaky.seed } : {}),
      latency: real.latency,
      realSeconds: real.seconds,
      simulatedSeconds: modelled.simulatedSeconds,
      simulatedZeroLatencySeconds: ideal.simulatedSeconds,
      realMergesPerHour: realPerHour,
      simulatedMergesPerHour: simulatedPerHour,
      // CI runs per merge, good PRs ejected and flakes that failed a run, real / simulated.
      runsPerMerge: [real.runsPerMerge, simulated.runsPerMerge],
      innocentEjections: [real.innocentEjections.length, modelled.innocentEjections],
      ...(shape.flaky ? { costlyFlakes: [real.costlyFlakes, simulated.costlyFlakes] } : {}),
      ratio: round(ratio),
      calibrated: Math.abs(ratio - 1) <= 0.1,
    };
  }
}
