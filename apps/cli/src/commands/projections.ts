import Redis from 'ioredis';
import { openRedisProjections, rebuildProjections } from '@railyard/projector';
import { loadConfig, openEventStore } from '@railyard/runtime';

const USAGE = 'usage: railyard projections rebuild   (rebuilds every Redis read model of the namespace from event position 0)';

/**
 * Rebuilds the Redis read models (queue and PR views, metrics, test health) from the event store.
 * Stop the projector first: a rebuild must be the only writer of the namespace. The embedded server
 * needs no rebuild: its in-memory models are rebuilt at every start.
 */
export const projectionsCommand = async (argv: string[], env: NodeJS.ProcessEnv): Promise<number> => {
  if (argv[0] !== 'rebuild') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(env);
  const eventStore = await openEventStore(config);
  const redis = new Redis(config.redisUrl ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const { all } = openRedisProjections(redis, config.redisNamespace, env);
  try {
    const rebuilt: Record<string, { events: number; seconds: number }> = {};
    for (const [name, store] of Object.entries(all)) rebuilt[name] = await rebuildProjections({ eventStore, readModels: store });
    const events = Math.max(...Object.values(rebuilt).map((r) => r.events));
    process.stdout.write(`${JSON.stringify({ rebuilt: true, events, namespace: config.redisNamespace, projections: rebuilt })}\n`);
    return 0;
  } finally {
    await Promise.all([eventStore.close(), ...Object.values(all).map((s) => s.close())]);
    await redis.quit();
  }
};
