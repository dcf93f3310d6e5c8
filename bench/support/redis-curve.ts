import Redis from 'ioredis';
import { dropNamespace } from './redis-namespace';
import { redisUrlFromEnv, uniqueNamespace } from './settings';

/**
 * One row per size, each measured on a store of its own under a fresh namespace of the bench Redis,
 * which is dropped afterwards whatever happens; each row is printed as it comes.
 */
export const redisCurve = async <S extends { close(): Promise<void> }>(
  sizes: number[],
  label: string,
  open: (redis: Redis, namespace: string) => S,
  measure: (size: number, store: S, redis: Redis, namespace: string) => Promise<Record<string, number>>,
  progress: (line: string) => void,
): Promise<Record<string, number>[]> => {
  const url = redisUrlFromEnv();
  const rows: Record<string, number>[] = [];
  for (const size of sizes) {
    const namespace = uniqueNamespace(label);
    const redis = new Redis(url, { maxRetriesPerRequest: null });
    const store = open(redis, namespace);
    try {
      const row = await measure(size, store, redis, namespace);
      progress(JSON.stringify(row));
      rows.push(row);
    } finally {
      await store.close();
      redis.disconnect();
      await dropNamespace(url, namespace);
    }
  }
  return rows;
};
