import type { BackoffPolicy, EventStore } from '@railyard/eventstore';
import { errorFields, type Logger } from '@railyard/observability';
import { WebhookDeliverer, type EndpointLeases } from './deliverer';
import type { DeliveryStore } from './delivery-store';
import { EndpointService } from './endpoint-service';
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
}): { api: WebhookParts; deliverer: WebhookDeliverer } => {
  const policy = new AddressPolicy(o.allowNetworks);
  const endpoints = new EndpointService(o.eventStore);
  const deliverer = new WebhookDeliverer({
    eventStore: o.eventStore,
    endpoints,
    store: o.deliveries,
    policy,
    publicUrl: o.publicUrl,
    retry: o.retry,
    ...(o.leases ? { leases: o.leases } : {}),
    ...(o.loadBlob ? { loadBlob: o.loadBlob } : {}),
    onError: (err, endpointId) => o.logger.error('webhook delivery failed', { ...errorFields(err), ...(endpointId ? { endpointId } : {}) }),
  });
  return { api: { endpoints, deliveries: o.deliveries, policy }, deliverer };
};
