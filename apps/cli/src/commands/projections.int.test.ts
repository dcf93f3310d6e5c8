import Redis from 'ioredis';
import { redisKeys } from '@railyard/readmodels';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { cliInProcess } from '../testing';

jest.setTimeout(30_000);

const REDIS_URL = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const cli = cliInProcess;

describe('railyard projections rebuild', () => {
  let dataDir: string;
  let redis: Redis;
  const namespace = `test-cli-rebuild-${process.pid}-${Date.now().toString(36)}`;
  const leaseKey = redisKeys(namespace).lease('projector');

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  beforeEach(async () => {
    dataDir = await makeTempDir();
  });
  afterEach(async () => {
    await redis.del(leaseKey);
    await removeTempDir(dataDir);
  });
  afterAll(async () => {
    // This namespace only (never FLUSHDB: the Redis is shared).
    const keys = await redis.keys(`ry:{${namespace}}:*`);
    if (keys.length > 0) await redis.unlink(...keys);
    await redis.quit();
  });

  it('when RAILYARD_REDIS_URL is not set, then it refuses with exit 2 instead of guessing a Redis', async () => {
    const run = await cli(['projections', 'rebuild'], { RAILYARD_DATA_DIR: dataDir });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('RAILYARD_REDIS_URL is not set');
    expect(run.stdout).toBe('');
  });

  it('when a projector holds the lease, then it refuses with exit 1 and leaves the lease with its holder', async () => {
    await redis.set(leaseKey, 'projector-on-host-a', 'PX', 20_000);

    const run = await cli(['projections', 'rebuild'], {
      RAILYARD_DATA_DIR: dataDir,
      RAILYARD_REDIS_URL: REDIS_URL,
      RAILYARD_REDIS_NAMESPACE: namespace,
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('a projector holds the lease');
    expect(run.stderr).toContain('projector-on-host-a');
    expect(await redis.get(leaseKey)).toBe('projector-on-host-a');
  });

  it('when no projector runs, then it rebuilds under the lease and releases it', async () => {
    const run = await cli(['projections', 'rebuild'], {
      RAILYARD_DATA_DIR: dataDir,
      RAILYARD_REDIS_URL: REDIS_URL,
      RAILYARD_REDIS_NAMESPACE: namespace,
    });

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ rebuilt: true, events: expect.any(Number), namespace });
    expect(await redis.get(leaseKey)).toBeNull();
  });

  it('when asked for help, then it prints the usage and exits 0 without rebuilding anything', async () => {
    // Without RAILYARD_REDIS_URL the rebuild itself would exit 2: exit 0 shows its body never ran.
    const run = await cli(['projections', 'rebuild', '--help'], { RAILYARD_DATA_DIR: dataDir });

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: railyard projections rebuild/);
  });
});
