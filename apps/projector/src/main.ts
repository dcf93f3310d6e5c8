import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createBlobStore, createEventStore } from '@railyard/eventstore';
import {
  collectProcessMetrics,
  createLogger,
  errorFields,
  processGauge,
  startMetricsServer,
  type MetricsServer,
} from '@railyard/observability';
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
  for (const s of config.ignoredSettings) logger.warn('setting ignored', { setting: s.name, why: s.why });
  collectProcessMetrics();
  // Bound before the lease is sought: a metrics port in use stops this process before it projects anything.
  const metricsServer: MetricsServer | null =
    config.metricsPort === undefined ? null : await startMetricsServer({ port: config.metricsPort, host: config.metricsHost });
  if (metricsServer) logger.info('projector metrics listening', { port: metricsServer.port });
  const eventStore = await createEventStore(config.eventStore);
  // The projector waits out Redis outages rather than failing commands, hence no retry limit.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const blobs = await createBlobStore(config.blobs);
  const { readModels, metrics, testHealth, all } = openRedisProjections(redis, config.namespace, config.testHealthLimits, blobs);
  // Every projection this process keeps, each with its own checkpoint and subscription, all under the one lease.
  const projections = Object.values(all);
  const leaseHeld = processGauge(
    'railyard_projector_lease_held',
    '1 while this projector process holds the projector lease and projects, 0 while it waits on standby.',
  );
  const lease = new RedisLease({
    redis,
    key: redisKeys(config.namespace).lease('projector'),
    owner: `${os.hostname()}:${process.pid}:${randomUUID()}`,
    ttlMs: config.leaseTtlMs,
    retryEveryMs: config.leaseRetryMs,
  });
  const runner = runLeasedProjector({
    lease,
    logger,
    start: () => {
      leaseHeld.set(1);
      const running = projections.map((target) => runProjector({ eventStore, readModels: target, logger, batchSize: config.batchSize }));
      return {
        stop: async () => {
          await Promise.all(running.map((p) => p.stop()));
          leaseHeld.set(0);
        },
      };
    },
  });
  logger.info('projector started', { eventStore: config.eventStore.kind, namespace: config.namespace });

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('projector shutting down', { signal });
    void (async () => {
      // First: the lease is released as soon as the last batch is applied, so a standby takes over at once.
      await runner.stop();
      await metricsServer?.close();
      await readModels.close();
      await metrics.close();
      await testHealth.close();
      await blobs.close();
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
