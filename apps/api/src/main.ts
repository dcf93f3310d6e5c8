import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectProcessMetrics, createLogger, errorFields, listenOrExplain } from '@railyard/observability';
import { RedisMetricsStore, RedisReadModelStore } from '@railyard/readmodels';
import {
  apiSettingsOf,
  applyEnvFile,
  loadConfig,
  loadTokens,
  openBlobStore,
  openEventStore,
  openGitHost,
  requireApiSecrets,
  withDistributedRedis,
} from '@railyard/runtime';
import { localHostStatuses } from '@railyard/githost';
import { openGithub } from '@railyard/github';
import { composeApi } from './compose';
import { openDistributedWebhooks } from './webhooks-distributed';
import { githubApiOf } from './github';
import { openTestHealthStore, testHealthConfigOf } from './test-health';
import { startRetention } from './retention';

/**
 * `npm run start:api`: the distributed shape's stateless API. Reads come from the Redis read models a
 * separate projector process (`npm run start:projector`) keeps; writes go to the shared event store.
 */
const main = async (): Promise<void> => {
  applyEnvFile(process.env, process.cwd());
  const config = withDistributedRedis(loadConfig());
  // Before anything is bound or written: replicas must not each make up their own secrets (docs/security.md).
  requireApiSecrets(config);
  const logger = createLogger('railyard-api', config.logLevel);
  for (const s of config.ignoredSettings) logger.warn('setting ignored', { setting: s.name, why: s.why });
  // Bound first, so a port in use is reported as such before anything is opened (docs/operations.md).
  let handler: RequestListener = (_req, res) => void res.writeHead(503, { 'Retry-After': '1' }).end();
  const server = createServer((req, res) => handler(req, res));
  await listenOrExplain(server, config.port, config.host, 'PORT');
  collectProcessMetrics();
  const tokens = loadTokens(
    { raw: config.apiTokens, file: config.apiTokensFile },
    config.dataDir,
    (l) => process.stdout.write(l),
    (message) => logger.warn(message),
  );
  const eventStore = await openEventStore(config);
  const blobs = await openBlobStore(config);
  const readModels = new RedisReadModelStore({
    redis: config.redisUrl,
    namespace: config.redisNamespace,
    storedAnswers: config.redisStoredAnswers,
  });
  // GitHub's PRs are read through the App when it is configured (docs/github.md).
  const github = config.github ? await openGithub(config.github, { logger }) : null;
  const gitHost = openGitHost(config, github);
  // Fed by the projector process, like the queue views: every replica serves the same numbers.
  const metrics = new RedisMetricsStore({ redis: config.redisUrl, namespace: config.redisNamespace });
  const testHealthConfig = testHealthConfigOf(config.testHealth, config.dataDir);
  // Also fed by the projector process; every replica parses uploads and sweeps (see docs/test-health.md).
  const testHealthStore = openTestHealthStore('redis', {
    blobs,
    config: testHealthConfig,
    redisUrl: config.redisUrl,
    namespace: config.redisNamespace,
  });
  // Status intake appends the statuses the engine processes hear through the shared event store; the
  // check logs it serves are written by the engine's runner.
  const statuses = localHostStatuses({
    eventStore,
    gitRoot: config.gitRoot,
    actor: 'api',
    onError: (err) => logger.error('commit status subscription failed', errorFields(err)),
  });
  // Webhooks at /github/webhooks: recorded in the event store, where the engine processes read their hints.
  const githubApi = github ? await githubApiOf(github) : undefined;
  let selfUrl = '';
  // Outgoing webhooks: every replica runs a deliverer; a lease per endpoint picks the one that sends.
  const webhooks = openDistributedWebhooks({
    eventStore,
    redisUrl: config.redisUrl,
    namespace: config.redisNamespace,
    allowNetworks: config.webhooks.allowNetworks,
    retry: config.webhooks.retry,
    leaseTtlMs: config.projector.leaseTtlMs,
    publicUrl: () => config.publicUrl ?? selfUrl,
    loadBlob: (digest) => blobs.get(digest),
    secretKeys: config.webhooks.secretKeys,
    logger,
  });
  const { app, testHealth, setSelfUrl } = composeApi({
    eventStore,
    blobs,
    readModels,
    metrics,
    testHealthStore,
    testHealthConfig,
    gitHost,
    statuses,
    tokens,
    logger,
    ...apiSettingsOf(config),
    ...(githubApi ? { github: githubApi } : {}),
    // The projector process holds this lease while it projects (apps/projector); no holder, no projection.
    projector: { holder: () => readModels.leaseHolder('projector') },
    webhooks: webhooks.api,
  });
  handler = app;
  const port = (server.address() as AddressInfo).port;
  selfUrl = `http://${config.host}:${port}`;
  setSelfUrl(selfUrl);
  webhooks.deliverer.start();
  // Every replica times the sweep; the one holding the retention lease does it (D296).
  const retention = startRetention({
    settings: config.retention,
    eventStore,
    blobs,
    logger,
    lease: { redisUrl: config.redisUrl, namespace: config.redisNamespace, ttlMs: config.projector.leaseTtlMs },
  });
  logger.info('railyard api listening', { port, eventStore: config.eventStore.kind });
  const stop = () => {
    server.close(() => {
      Promise.all([
        retention.close(),
        webhooks.close(),
        statuses.close(),
        testHealth.close(),
        eventStore.close(),
        blobs.close(),
        readModels.close(),
        metrics.close(),
        testHealthStore.close(),
        gitHost.close(),
      ]).finally(() => process.exit(0));
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
