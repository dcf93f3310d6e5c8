import { randomUUID } from 'node:crypto';
import os from 'node:os';
import Redis from 'ioredis';
import {
  loadConfig,
  openBlobStore,
  openEventStore,
  openRedisProjections,
  RedisLease,
  rebuildProjections,
  redisKeys,
} from '../backends/projections';
import { CommandFailed, UsageError, type CliContext } from '../context';

// Held for the whole rebuild and renewed meanwhile; if the CLI dies, a projector waits at most this long.
const LEASE_TTL_MS = 15_000;

/**
 * `railyard projections rebuild`: forgets the Redis read models (queue and PR views, metrics, test
 * health) and folds every event into them again. It takes the projector lease first, so it never
 * runs beside a live projector (it refuses while one holds the lease) and a projector started
 * meanwhile waits for it. The embedded server needs no rebuild: its models are rebuilt at every start.
 */
export const rebuildCommand = async (_flags: object, ctx: CliContext): Promise<number> => {
  const config = loadConfig(ctx.env);
  // No default: a guessed URL would rebuild some other Redis's database 0.
  if (!config.redisUrl) throw new UsageError('RAILYARD_REDIS_URL is not set: name the Redis of the projector whose read models to rebuild');
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new CommandFailed(`cannot reach Redis at ${config.redisUrl}: ${(err as Error).message}`);
  }
  const key = redisKeys(config.redisNamespace).lease('projector');
  const lease = new RedisLease({ redis, key, owner: `cli-rebuild:${os.hostname()}:${process.pid}:${randomUUID()}`, ttlMs: LEASE_TTL_MS });
  try {
    if (!(await lease.tryAcquire())) {
      const holder = await redis.get(key);
      throw new CommandFailed(
        `a projector holds the lease of namespace ${config.redisNamespace} (${holder ?? 'unknown'}); stop every projector first`,
      );
    }
    let lost = false;
    lease.onLost(() => (lost = true));
    const eventStore = await openEventStore(config);
    // The upload case lists are read where the API stored them (libs/runtime's blobStoreConfigOf).
    const blobs = await openBlobStore(config);
    const { all } = openRedisProjections(
      redis,
      config.redisNamespace,
      { maxRunsPerTest: config.testHealth.maxRunsPerTest, retentionDays: config.testHealth.retentionDays },
      blobs,
    );
    try {
      const rebuilt: Record<string, { events: number; seconds: number }> = {};
      for (const [name, store] of Object.entries(all)) rebuilt[name] = await rebuildProjections({ eventStore, readModels: store });
      if (lost) throw new CommandFailed('the projector lease was lost during the rebuild (Redis unreachable?); run it again');
      const events = Math.max(...Object.values(rebuilt).map((r) => r.events));
      ctx.io.stdout.write(`${JSON.stringify({ rebuilt: true, events, namespace: config.redisNamespace, projections: rebuilt })}\n`);
      return 0;
    } finally {
      await Promise.all([eventStore.close(), blobs.close(), ...Object.values(all).map((s) => s.close())]);
    }
  } finally {
    await lease.release().catch(() => undefined);
    await redis.quit().catch(() => undefined);
  }
};
