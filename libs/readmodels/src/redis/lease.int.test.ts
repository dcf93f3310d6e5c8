import Redis from 'ioredis';
import { redisKeys } from './keys';
import { RedisLease } from './lease';

const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const keys = redisKeys(`test-lease-${process.pid}`);
let redis: Redis;
const leases: RedisLease[] = [];

const lease = (owner: string, ttlMs: number, renewEveryMs?: number): RedisLease => {
  const l = new RedisLease({
    redis,
    key: keys.lease('projector'),
    owner,
    ttlMs,
    ...(renewEveryMs ? { renewEveryMs } : {}),
    retryEveryMs: 10,
  });
  leases.push(l);
  return l;
};

beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
});

afterEach(async () => {
  await Promise.all(leases.splice(0).map((l) => l.release()));
  await redis.del(keys.lease('projector'));
});

afterAll(async () => {
  await redis.quit();
});

describe('RedisLease', () => {
  it('when two contenders try at once, then exactly one holds the lease', async () => {
    const a = lease('a', 5_000);
    const b = lease('b', 5_000);
    const results = await Promise.all([a.tryAcquire(), b.tryAcquire()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect([a.held, b.held].filter(Boolean)).toHaveLength(1);
    expect(await redis.get(keys.lease('projector'))).toBe(a.held ? 'a' : 'b');
  });

  it('when the holder releases, then the waiting contender takes over', async () => {
    const a = lease('a', 5_000);
    const b = lease('b', 5_000);
    expect(await a.tryAcquire()).toBe(true);
    const waiting = b.acquire();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(b.held).toBe(false);
    await a.release();
    expect(await waiting).toBe(true);
    expect(await redis.get(keys.lease('projector'))).toBe('b');
  });

  it('when the holder stops renewing, then the lease expires and the contender takes over', async () => {
    // Renewing far less often than the TTL is what a crashed or frozen holder looks like.
    const a = lease('a', 150, 60_000);
    const b = lease('b', 5_000);
    expect(await a.tryAcquire()).toBe(true);
    expect(await b.acquire()).toBe(true);
    expect(await redis.get(keys.lease('projector'))).toBe('b');
  });

  it('when the holder keeps renewing, then the lease outlives its TTL', async () => {
    // The TTL leaves room for the event loop to stall: on a loaded two-core CI machine a 120 ms TTL
    // renewed every 30 ms was lost once, which a real holder with the default TTL would not be.
    const a = lease('a', 1_000, 100);
    expect(await a.tryAcquire()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(a.held).toBe(true);
    expect(await redis.get(keys.lease('projector'))).toBe('a');
  });

  it('when someone else holds the key at renewal time, then the holder is told it lost the lease', async () => {
    const a = lease('a', 5_000, 30);
    expect(await a.tryAcquire()).toBe(true);
    const lost = new Promise<void>((resolve) => a.onLost(resolve));
    await redis.set(keys.lease('projector'), 'intruder', 'PX', 5_000);
    await lost;
    expect(a.held).toBe(false);
    await a.release();
    expect(await redis.get(keys.lease('projector'))).toBe('intruder');
  });

  it('when waiting is aborted, then acquire answers false', async () => {
    const a = lease('a', 5_000);
    const b = lease('b', 5_000);
    await a.tryAcquire();
    const abort = new AbortController();
    const waiting = b.acquire(abort.signal);
    abort.abort();
    expect(await waiting).toBe(false);
  });
});
