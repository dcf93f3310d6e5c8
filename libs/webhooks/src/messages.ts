import type { RepoRef } from '@railyard/domain';
import type { TRUNK_EVENT_TYPES, WebhookEventType } from './event-types';

export type TrunkEventType = (typeof TRUNK_EVENT_TYPES)[number];

/**
 * One webhook message the event log gives rise to, before it is addressed to an endpoint. `key`
 * orders it: messages of one PR (or one queue) are delivered in log order.
 */
export interface WebhookMessage {
  type: WebhookEventType;
  /** What is sent: Trunk's payload for Trunk's types (with Railyard's `railyard_*` additions), ours for queue.state_changed. */
  payload: Record<string, unknown>;
  repo: RepoRef;
  targetBranch: string;
  /** Position of the event it came from, and its place among that event's messages: the message's identity. */
  eventId: string;
  position: bigint;
  index: number;
}
