import type { QueueEvent } from '@railyard/domain';

/** CI runs per merge and failed runs that held no breaking PR (flakes that cost a run), from a run's events. */
export const runsOf = (events: readonly QueueEvent[], breaking: ReadonlySet<number>): { runsPerMerge: number; costlyFlakes: number } => {
  const stacks = new Map<string, number[]>();
  let merged = 0;
  let costlyFlakes = 0;
  for (const e of events) {
    if (e.type === 'TestRunStarted') stacks.set(e.data.testRunId, [...e.data.prNumbers, ...e.data.dependentPrs]);
    if (e.type === 'PrMerged') merged++;
    if (e.type === 'TestRunFailed' && !(stacks.get(e.data.testRunId) ?? []).some((n) => breaking.has(n))) costlyFlakes++;
  }
  return { runsPerMerge: Math.round((stacks.size / Math.max(merged, 1)) * 1000) / 1000, costlyFlakes };
};
