import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { median } from './engine-latency';

const run = promisify(execFile);

/**
 * How long this machine takes to start a process and see it end, from this process: median of
 * `count` runs of `git --version`, in ms. The engine and the local CI start a dozen or two processes
 * per test run, one after another, so the engine benchmarks' ratios depend on it (docs/benchmarks.md,
 * "slow process creation": 0.78 on a machine where this is ~8 ms, 0.93 on one where it was lower).
 * Printed beside those ratios so figures from two machines can be told apart.
 */
export const spawnMs = async (count = 21): Promise<number> => {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await run('git', ['--version']);
    times.push(performance.now() - t0);
  }
  return Math.round(median(times) * 10) / 10;
};
