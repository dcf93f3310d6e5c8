/**
 * The events a webhook endpoint can subscribe to: Trunk's 16 (its v1 document's `webhooks`, spelled
 * as Trunk spells them: `canceled` with one l) and Railyard's own `queue.state_changed`.
 */
export const PR_ACTIONS = ['submitted', 'queued', 'testing', 'pending_failure', 'failed', 'canceled', 'merged'] as const;
export type PrAction = (typeof PR_ACTIONS)[number];

export const TRUNK_EVENT_TYPES = [
  ...PR_ACTIONS.map((a) => `pull_request.${a}` as const),
  ...PR_ACTIONS.map((a) => `pull_request_batch.${a}` as const),
  'test_case.status_changed',
  'test_case.quarantining_setting_changed',
] as const;

export const WEBHOOK_EVENT_TYPES = [...TRUNK_EVENT_TYPES, 'queue.state_changed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (value: string): value is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
