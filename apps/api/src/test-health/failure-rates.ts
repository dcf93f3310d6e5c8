import { failureRateLast24h, failureRateLast7d, type TestRun } from '@railyard/testhealth';
import type { TestHealthContext } from './context';
import type { FailureRates } from './views';

/** How often a test failed over the last 7 days and the last 24 hours, from its run history. */
export const failureRatesOfRuns = (runs: readonly TestRun[], now: Date): FailureRates => ({
  last7d: failureRateLast7d(runs, now),
  last24h: failureRateLast24h(runs, now),
});

/** The same for each test, read from the store. */
export const failureRatesOf = async (th: TestHealthContext, repoId: string, testIds: readonly string[]): Promise<FailureRates[]> => {
  const histories = await th.store.getHistories(repoId, testIds);
  const now = th.clock.now();
  return histories.map((h) => failureRatesOfRuns(h.runs, now));
};
