import type { AddressInfo } from 'node:net';
import { createLogger, errorFields } from '@railyard/observability';
import { RedisMetricsStore } from '@railyard/readmodels';
import { loadConfig, loadTokens, openBlobStore, openEventStore, openGitHost, openReadModels } from '@railyard/runtime';
import { ciSettingsFromEnv, CommitChecker } from '@railyard/ci';
import { LocalCommitStatusStore } from '@railyard/githost';
import { buildApp } from './app';
import { ciRouters, withCiPages } from './ci/routes';
import { rateLimit } from './auth/rate-limit';
import { QueueCommands } from './queue-commands';
import { historyRoutes } from './routes/history';
import { metricsRoutes } from './routes/metrics';
import { createTestHealth, openTestHealthStore, testHealthConfigFromEnv } from './routes/test-health';

/**
 * `npm run start:api`: the distributed shape's stateless API. Reads come from the Redis read models a
 * separate projector process (`npm run start:projector`) keeps; writes go to the shared event store.
 */
const main = async (): Promise<void> => {
  const config = loadConfig();
  if (!config.redisUrl) config.redisUrl = 'redis://127.0.0.1:6379';
  const logger = createLogger('railyard-api', config.logLevel);
  const tokens = loadTokens(config.apiTokens, config.dataDir, (l) => process.stdout.write(l));
  const eventStore = await openEventStore(config);
  const blobs = await openBlobStore(config);
  const readModels = openReadModels(config, 'redis');
  const gitHost = openGitHost(config);
  const commands = new QueueCommands(eventStore, readModels, logger, { clock: { now: () => new Date() }, readYourWritesTimeoutMs: config.readYourWritesTimeoutMs });
  // Fed by the projector process, like the queue views: every replica serves the same numbers.
  const metrics = new RedisMetricsStore({ redis: config.redisUrl, namespace: config.redisNamespace });
  const deps = { commands, readModels, gitHost, blobs, tokens, logger, limiter: rateLimit(config.rateLimitPerSecond) };
  const testHealthConfig = testHealthConfigFromEnv(process.env, config.dataDir);
  // Also fed by the projector process; every replica parses uploads and sweeps (see docs/test-health.md).
  const testHealthStore = openTestHealthStore('redis', { blobs, config: testHealthConfig, redisUrl: config.redisUrl, namespace: config.redisNamespace });
  let selfUrl = '';
  const testHealth = createTestHealth({
    eventStore,
    blobs,
    store: testHealthStore,
    tokens,
    logger,
    gitRoot: config.gitRoot,
    config: testHealthConfig,
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    serverUrl: () => selfUrl,
  });
  const extraRouters = [metricsRoutes(deps, { metrics, eventStore, projections: { readmodels: readModels, metrics } }), historyRoutes(deps, { eventStore }), testHealth.router];
  // Status intake writes the statuses the engine process listens to; the check logs it serves are written by the engine's runner.
  const ciSettings = ciSettingsFromEnv();
  const statuses = new LocalCommitStatusStore({ root: config.gitRoot });
  const ciHttp = { statuses, commits: new CommitChecker(config.gitRoot), dataDir: config.dataDir, ...(ciSettings.publicUrl ? { publicUrl: ciSettings.publicUrl } : {}) };
  extraRouters.push(...ciRouters(deps, ciHttp));
  const app = withCiPages(buildApp(deps, extraRouters), deps, ciHttp);
  const server = app.listen(config.port, config.host, () => {
    selfUrl = `http://${config.host}:${(server.address() as AddressInfo).port}`;
    logger.info('railyard api listening', { port: (server.address() as AddressInfo).port, eventStore: config.eventStore.kind });
  });
  const stop = () => {
    server.close(() => {
      Promise.all([statuses.close(), testHealth.close(), eventStore.close(), blobs.close(), readModels.close(), metrics.close(), testHealthStore.close(), gitHost.close()]).finally(() => process.exit(0));
    });
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
};

main().catch((err) => {
  createLogger('railyard-api').error('failed to start', errorFields(err));
  process.exit(1);
});
