import path from 'node:path';
import { evaluateTargets, loadWorkload, simulate, workloadFiles, type SimResult } from '@railyard/simulator';

/**
 * `npm run bench -- simulate [workload files or folders]`: every workload (default bench/workloads)
 * through the simulator, one JSON line each, then one line per throughput target with the value
 * measured and whether it is met. Simulated time only: the numbers do not depend on the machine.
 */
export async function* run(args: string[]): AsyncIterable<object> {
  const targets = args.length > 0 ? args : [path.join(__dirname, 'workloads')];
  const files = (await Promise.all(targets.map(workloadFiles))).flat();
  const results: SimResult[] = [];
  for (const file of files) {
    const workload = await loadWorkload(file);
    const started = Date.now();
    const result = await simulate(workload);
    results.push(result);
    process.stderr.write(`[bench simulate] ${workload.name}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    yield { name: `simulate/${workload.name}`, ...result };
  }
  for (const check of evaluateTargets(results)) yield { name: 'simulate/target', ...check };
}
