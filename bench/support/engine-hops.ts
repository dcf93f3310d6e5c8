import type { Histogram } from 'prom-client';

/**
 * The mean of each label's observations, in milliseconds, from a prom-client histogram: where the
 * engine's time goes between a wake-up and the next check (railyard_engine_hop_seconds, by hop) and
 * per action (railyard_engine_action_duration_seconds), for reading a bench run without a scrape.
 */
export const meanMsBy = async <L extends string>(h: Histogram<L>, label: L): Promise<Record<string, { meanMs: number; count: number }>> => {
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const v of (await h.get()).values) {
    const key = String(v.labels[label] ?? '');
    if (v.metricName?.endsWith('_sum')) sums.set(key, (sums.get(key) ?? 0) + v.value);
    if (v.metricName?.endsWith('_count')) counts.set(key, (counts.get(key) ?? 0) + v.value);
  }
  const out: Record<string, { meanMs: number; count: number }> = {};
  for (const [key, count] of counts) if (count > 0) out[key] = { meanMs: Math.round(((sums.get(key) ?? 0) / count) * 10_000) / 10, count };
  return out;
};
