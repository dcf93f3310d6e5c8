import { rebuildProjections } from '@railyard/projector';
import { loadConfig, openEventStore, openReadModels } from '@railyard/runtime';

const USAGE = 'usage: railyard projections rebuild   (rebuilds the Redis read models from event position 0)';

/**
 * Rebuilds the Redis read models from the event store. The embedded server needs no rebuild: its
 * in-memory models are rebuilt at every start.
 */
export const projectionsCommand = async (argv: string[], env: NodeJS.ProcessEnv): Promise<number> => {
  if (argv[0] !== 'rebuild') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(env);
  if (!config.redisUrl) config.redisUrl = 'redis://127.0.0.1:6379';
  const eventStore = await openEventStore(config);
  const readModels = openReadModels(config, 'redis');
  try {
    const result = await rebuildProjections({ eventStore, readModels });
    process.stdout.write(`${JSON.stringify({ rebuilt: true, events: result.events, seconds: result.seconds, namespace: config.redisNamespace })}\n`);
    return 0;
  } finally {
    await Promise.all([eventStore.close(), readModels.close()]);
  }
};
