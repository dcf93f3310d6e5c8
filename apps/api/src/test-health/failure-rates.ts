import { failureRateLast24h, failureRateLast7d } from '@railyard/testhealth';
import type { TestHealthContext } from './context';
import type { FailureRates } from './views';

/** How often each test failed over the last 7 days and the last 24 hours, from its run history. */
export const failureRatesOf = async (th: TestHealthContext, repoId: string, testIds: readonly string[]): Promise<FailureRates[]> => {
  const histories = await th.store.getHistories(repoId, testIds);
  const now = th.clock.now();
  return histories.map((h) => ({ last7d: failureRateLast7d(h.runs, now), last24h: failureRateLast24h(h.runs, now) }));
};
