import Redis from 'ioredis';

export const REDIS_URL = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const uniqueNamespace = (label: string): string => `test-${label}-${process.pid}-${Date.now().toString(36)}`;

/** Removes every key of one namespace (never FLUSHDB: the Redis may be shared). */
export const dropNamespace = async (namespace: string): Promise<void> => {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `ry:{${namespace}}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
};
