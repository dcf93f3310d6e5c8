import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createLocalCi } from '@railyard/ci';
import { checkRunPublisherOf, GithubHintFeed, openGithub } from '@railyard/github';
import { collectProcessMetrics, createLogger, errorFields, startMetricsServer } from '@railyard/observability';
import { applyEnvFile, loadConfig, openBlobStore, openEventStore, withDistributedRedis } from '@railyard/runtime';
import Redis from 'ioredis';
import { hostsFor, localCodeHost } from './embedded';
import { startEngine } from './engine';
import { QueueLeases } from './queue-leases';
import { RedisEngineState } from './redis-state';

/**
 * `npm run start:engine`: the engine as its own process, beside API and projector processes that
 * share its event store. Queues are shared out between engine processes by Redis leases.
 */
const main = async (): Promise<void> => {
  applyEnvFile(process.env, process.cwd());
  // Redis defaulted as in the API, so the blob store (impacted targets, CI logs) is the API's too.
  const config = withDistributedRedis(loadConfig());
  const logger = createLogger('railyard-engine', config.logLevel);
  for (const s of config.ignoredSettings) logger.warn('setting ignored', { setting: s.name, why: s.why });
  collectProcessMetrics();
  // RAILYARD_METRICS_PORT: bound first, so a port in use stops the engine before it takes any queue.
  const metricsServer = config.metricsPort === undefined ? null : await startMetricsServer({ port: config.metricsPort, host: config.host });
  if (metricsServer) logger.info('engine metrics listening', { port: metricsServer.port });
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const leases = new QueueLeases({
    redis,
    namespace: config.redisNamespace,
    owner: `${os.hostname()}:${process.pid}:${randomUUID()}`,
    ttlMs: config.engine.leaseTtlMs,
    logger,
  });
  const eventStore = await openEventStore(config);
  const blobs = await openBlobStore(config);
  // The same CI and commit statuses as the API processes: statuses posted to any API replica (or with
  // `railyard status set`) reach this engine through the shared event store.
  const ciSettings = { ...config.ci, dataDir: config.dataDir, gitRoot: config.gitRoot };
  const apiUrl = ciSettings.publicUrl ?? `http://${config.host}:${config.port}`;
  if (!ciSettings.publicUrl) logger.warn('RAILYARD_PUBLIC_URL is not set; CI log links will point at the default API address', { apiUrl });
  // Finished check logs are archived in the blob store, so API replicas on other machines serve them.
  const ci = await createLocalCi({ settings: ciSettings, eventStore, publicUrl: () => apiUrl, logger, logArchive: blobs });
  // GitHub's repositories through the App. Webhooks reach the API processes, which record them in the
  // event store with the hints this engine's GitHub host needs (docs/decisions.md D152).
  const github = config.github ? await openGithub(config.github, { logger }) : null;
  const hints = github
    ? await GithubHintFeed.start(eventStore, (err) => logger.error('github hint feed failed', { error: err.message }))
    : null;
  hints?.listen((hint) => github?.host.announce([hint]));
  if (github) logger.info('GitHub App configured', { host: github.hostName, apiUrl: github.settings.apiUrl });
  const { host, ci: routedCi } = hostsFor({ host: localCodeHost(config.gitRoot, ci.statusStore), ci }, github);
  const engine = startEngine({
    eventStore,
    host,
    ci: routedCi,
    logger,
    blobs,
    tickMs: config.engine.tickMs,
    verifyMs: config.engine.verifyMs,
    mergeabilityPerSecond: config.engine.mergeabilityPerSecond,
    owns: leases.owns,
    onRelease: leases.release,
    // Resumed from the snapshot beside the read models: a start reads only the log's tail (D292).
    ...(config.snapshotEveryEvents > 0
      ? { snapshots: { store: new RedisEngineState(redis, config.redisNamespace), everyEvents: config.snapshotEveryEvents } }
      : {}),
  });
  // The check runs of a queue are written by the engine that holds its lease: one writer per queue.
  const checkRuns = github
    ? checkRunPublisherOf(github, {
        eventStore,
        publicUrl: apiUrl,
        owns: leases.owns,
        logger,
        stickyComments: config.githubStickyComments,
      })
    : null;
  await checkRuns?.start();
  // A queue another engine let go of (SIGTERM, a rolling deploy) is tried at once, not at the next tick.
  await leases.onReleased((queueId) => engine.wake(queueId));
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('engine stopping', { signal });
    void (async () => {
      await checkRuns?.stop();
      await hints?.close();
      // The pass in progress ends, then the leases are released and announced (a standby takes over
      // at once), then the checks are stopped without a verdict: the new holder runs them again.
      await engine.stop();
      await leases.close();
      await metricsServer?.close();
      await ci.close();
      await Promise.all([eventStore.close(), blobs.close(), host.close(), github?.close()]);
      await redis.quit();
      process.exit(0);
    })().catch((err: unknown) => {
      logger.error('engine stop failed', errorFields(err));
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
};

main().catch((err: unknown) => {
  createLogger('railyard-engine').error('engine failed to start', errorFields(err));
  process.exit(1);
});
