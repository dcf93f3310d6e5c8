import Redis from 'ioredis';

/** Integration and e2e tiers need a real Redis; say so plainly instead of timing out in every test. */
export default async function globalSetup(): Promise<void> {
  const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(
      `integration tests need Redis at ${url} (start it: redis-server --daemonize yes --port 6379 --save "" --appendonly no): ${String(err)}`,
    );
  } finally {
    redis.disconnect();
  }
}
