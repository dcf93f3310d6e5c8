import path from 'node:path';
import type { EventStore } from '@railyard/eventstore';
import type { Logger } from '@railyard/observability';
import type { RailyardConfig } from '@railyard/runtime';
import { SqliteDeliveryStore, webhookParts } from '@railyard/webhooks';

/**
 * The embedded shape's outgoing webhooks: one process delivers to every endpoint (no lease needed),
 * with checkpoints and the delivery log in `webhooks.sqlite` in the data dir, which the data-dir lock
 * already keeps to one server.
 */
export const openWebhooks = (
  config: RailyardConfig,
  eventStore: EventStore,
  publicUrl: () => string,
  logger: Logger,
  loadBlob?: (digest: string) => Promise<Buffer | null>,
) => {
  const deliveries = new SqliteDeliveryStore(path.join(config.dataDir, 'webhooks.sqlite'));
  const { api, deliverer } = webhookParts({
    eventStore,
    deliveries,
    allowNetworks: config.webhooks.allowNetworks,
    retry: config.webhooks.retry,
    secretKeys: config.webhooks.secretKeys,
    publicUrl,
    logger,
    ...(loadBlob ? { loadBlob } : {}),
  });
  return {
    api,
    deliverer,
    close: async () => {
      await deliverer.stop();
      await deliveries.close();
    },
  };
};
