import Redis from 'ioredis';

/** Removes every key under `ry:{<namespace>}:` (read models, checkpoint, leases, blobs); never FLUSHDB a shared Redis. */
export const dropNamespace = async (redisUrl: string, namespace: string): Promise<number> => {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  let removed = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `ry:{${namespace}}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) removed += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return removed;
};
