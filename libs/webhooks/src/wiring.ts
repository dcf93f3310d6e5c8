import type { BackoffPolicy, EventStore } from '@railyard/eventstore';
import { errorFields, type Logger } from '@railyard/observability';
import { WebhookDeliverer, type EndpointLeases } from './deliverer';
import type { DeliveryStore } from './delivery-store';
import { EndpointService } from './endpoint-service';
import { SecretBox, type SecretKey } from './secret-box';
import { AddressPolicy } from './ssrf';

/** What the API's webhook operations are given, whichever shape runs them. */
export interface WebhookParts {
  endpoints: EndpointService;
  deliveries: DeliveryStore;
  policy: AddressPolicy;
}

/**
 * The endpoints, the address policy and a deliverer over a delivery store: the same in the embedded
 * server (SQLite store, no lease) and in each replica of the distributed API (Redis store, a lease
 * per endpoint). Start the deliverer once the process serves.
 */
export const webhookParts = (o: {
  eventStore: EventStore;
  deliveries: DeliveryStore;
  allowNetworks: readonly string[];
  retry: BackoffPolicy;
  publicUrl: () => string;
  logger: Logger;
  leases?: EndpointLeases;
  loadBlob?: (digest: string) => Promise<Buffer | null>;
  /** RAILYARD_WEBHOOKS_SECRET_KEYS: seal the signing secrets in the log (D249); none: in clear. */
  secretKeys?: readonly SecretKey[];
}): { api: WebhookParts; deliverer: WebhookDeliverer } => {
  const policy = new AddressPolicy(o.allowNetworks);
  const box = new SecretBox(o.secretKeys ?? []);
  const endpoints = new EndpointService(o.eventStore, undefined, box);
  const deliverer = new WebhookDeliverer({
    eventStore: o.eventStore,
    endpoints,
    store: o.deliveries,
    policy,
    publicUrl: o.publicUrl,
    retry: o.retry,
    ...(o.leases ? { leases: o.leases } : {}),
    ...(o.loadBlob ? { loadBlob: o.loadBlob } : {}),
    // Every secret sealed with the first key before delivering: then older keys can be dropped.
    prepare: async () => {
      const count = await endpoints.reseal({ actor: 'webhooks', correlationId: 'reseal-secrets' });
      if (count > 0) o.logger.info('webhook secrets sealed with the first key', { count, key: box.sealingKey });
    },
    onError: (err, endpointId) => o.logger.error('webhook delivery failed', { ...errorFields(err), ...(endpointId ? { endpointId } : {}) }),
  });
  return { api: { endpoints, deliveries: o.deliveries, policy }, deliverer };
};
