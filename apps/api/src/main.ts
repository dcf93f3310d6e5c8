import type { AddressInfo } from 'node:net';
import { createLogger, errorFields } from '@railyard/observability';
import { loadConfig, loadTokens, openBlobStore, openEventStore, openGitHost, openReadModels } from '@railyard/runtime';
import { buildApp } from './app';
import { QueueCommands } from './queue-commands';

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
  const app = buildApp({ commands, readModels, gitHost, blobs, tokens, logger });
  const server = app.listen(config.port, config.host, () => {
    logger.info('railyard api listening', { port: (server.address() as AddressInfo).port, eventStore: config.eventStore.kind });
  });
  const stop = () => {
    server.close(() => {
      Promise.all([eventStore.close(), blobs.close(), readModels.close(), gitHost.close()]).finally(() => process.exit(0));
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
