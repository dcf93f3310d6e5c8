import { engineOverhead, type OverheadShape } from './engine';
import { simulateShape } from './support/simulated-shape';

/**
 * `npm run bench -- calibrate [N,C,T,fraction ...]`: the same workload on the real engine (real git,
 * the local CI, checks of T seconds) and in the simulator, which replays the real run's bad PRs and
 * takes the engine latency measured in that run (support/engine-latency.ts). Prints both merges per
 * hour and their ratio; the simulator is calibrated where the ratio is within 10% of 1. The
 * simulator is also run with zero latency, which is what its bound assumes.
 * Default shapes: 40 PRs, concurrency 4, 3 s checks, 10% breaking; and 24, 2, 2 s, 10%.
 */
const DEFAULT_SHAPES = ['40,4,3,0.1', '24,2,2,0.1'];
const progress = (line: string): void => void process.stderr.write(`[bench calibrate] ${line}\n`);
const round = (n: number, d = 3): number => Math.round(n * 10 ** d) / 10 ** d;

const parseShape = (arg: string): OverheadShape => {
  const [count, concurrency, checkSeconds, breakingFraction] = arg.split(',').map(Number);
  const shape = { count, concurrency, checkSeconds, breakingFraction } as OverheadShape;
  if (Object.values(shape).some((v) => v === undefined || !Number.isFinite(v) || v < 0))
    throw new Error(`a shape is N,C,T,fraction (e.g. 40,4,3,0.1); got ${JSON.stringify(arg)}`);
  return shape;
};

export async function* run(args: string[]): AsyncIterable<object> {
  for (const shape of (args.length > 0 ? args : DEFAULT_SHAPES).map(parseShape)) {
    progress(`real engine: ${shape.count} PRs, concurrency ${shape.concurrency}, ${shape.checkSeconds} s checks`);
    const real = await engineOverhead(shape);
    const ideal = await simulateShape(shape, real.breakingPrs, { runOverheadSeconds: 0, reactSeconds: 0 });
    const { runOverheadSeconds, reactSeconds } = real.latency;
    const modelled = await simulateShape(shape, real.breakingPrs, { runOverheadSeconds, reactSeconds });
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
      latency: real.latency,
      realSeconds: real.seconds,
      simulatedSeconds: modelled.simulatedSeconds,
      simulatedZeroLatencySeconds: ideal.simulatedSeconds,
      realMergesPerHour: realPerHour,
      simulatedMergesPerHour: simulatedPerHour,
      ratio: round(ratio),
      calibrated: Math.abs(ratio - 1) <= 0.1,
    };
  }
}
