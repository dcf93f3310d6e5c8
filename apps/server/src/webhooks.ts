import path from 'node:path';
import type { WebhookApiParts } from '@railyard/api';
import type { EventStore } from '@railyard/eventstore';
import { errorFields, type Logger } from '@railyard/observability';
import type { RailyardConfig } from '@railyard/runtime';
import { AddressPolicy, EndpointService, SqliteDeliveryStore, WebhookDeliverer } from '@railyard/webhooks';

/**
 * The embedded shape's outgoing webhooks: one process delivers to every endpoint (no lease needed),
 * with checkpoints and the delivery log in `webhooks.sqlite` in the data dir, which the data-dir lock
 * already keeps to one server.
 */
export const openWebhooks = (config: RailyardConfig, eventStore: EventStore, publicUrl: () => string, logger: Logger) => {
  const policy = new AddressPolicy(config.webhooks.allowNetworks);
  const endpoints = new EndpointService(eventStore);
  const deliveries = new SqliteDeliveryStore(path.join(config.dataDir, 'webhooks.sqlite'));
  const deliverer = new WebhookDeliverer({
    eventStore,
    endpoints,
    store: deliveries,
    policy,
    publicUrl,
    retry: config.webhooks.retry,
    onError: (err, endpointId) => logger.error('webhook delivery failed', { ...errorFields(err), ...(endpointId ? { endpointId } : {}) }),
  });
  const api: WebhookApiParts = { endpoints, deliveries, policy };
  return {
    api,
    deliverer,
    close: async () => {
      await deliverer.stop();
      await deliveries.close();
    },
  };
};
