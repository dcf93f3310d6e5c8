import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createEventStore } from '@railyard/eventstore';
import { createLogger, errorFields } from '@railyard/observability';
import { openRedisProjections, RedisLease, redisKeys } from '@railyard/readmodels';
import { applyEnvFile } from '@railyard/runtime';
import Redis from 'ioredis';
import { projectorConfigFromEnv } from './config';
import { runLeasedProjector } from './leased';
import { runProjector } from './run-projector';

// The distributed-mode projector: one active process per Redis namespace, the others on standby.
const main = async (): Promise<void> => {
  applyEnvFile(process.env, process.cwd());
  const logger = createLogger('projector');
  const config = projectorConfigFromEnv(process.env);
  const eventStore = await createEventStore(config.eventStore);
  // The projector waits out Redis outages rather than failing commands, hence no retry limit.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const { readModels, metrics, testHealth, all } = openRedisProjections(redis, config.namespace, config.testHealthLimits);
  // Every projection this process keeps, each with its own checkpoint and subscription, all under the one lease.
  const projections = Object.values(all);
  const lease = new RedisLease({
    redis,
    key: redisKeys(config.namespace).lease('projector'),
    owner: `${os.hostname()}:${process.pid}:${randomUUID()}`,
    ttlMs: config.leaseTtlMs,
  });
  const runner = runLeasedProjector({
    lease,
    logger,
    start: () => {
      const running = projections.map((target) => runProjector({ eventStore, readModels: target, logger, batchSize: config.batchSize }));
      return { stop: async () => void (await Promise.all(running.map((p) => p.stop()))) };
    },
  });
  logger.info('projector started', { eventStore: config.eventStore.kind, namespace: config.namespace });

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('projector shutting down', { signal });
    void (async () => {
      await runner.stop();
      await readModels.close();
      await metrics.close();
      await testHealth.close();
      await eventStore.close();
      await redis.quit();
      process.exit(0);
    })().catch((err: unknown) => {
      logger.error('projector shutdown failed', errorFields(err));
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
};

main().catch((err: unknown) => {
  createLogger('projector').error('projector failed to start', errorFields(err));
  process.exit(1);
});
