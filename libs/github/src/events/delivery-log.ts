import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '@railyard/eventstore';
import type { GithubHostHint, WebhookDigest } from './webhook-digest';

/**
 * Webhook deliveries recorded in the event store, one small stream per `x-github-delivery` id, so a
 * redelivery is recognised by every API replica and after any restart (docs/github.md,
 * "Redeliveries"). The first event says the delivery was received (with its digest, which the engine
 * reads as host hints); the next ones that its commands were carried out, or failed.
 */

export const DELIVERY_STREAM_PREFIX = 'github-delivery-';
export const DELIVERY_RECEIVED = 'GithubWebhookReceived';
export const DELIVERY_HANDLED = 'GithubWebhookHandled';
export const DELIVERY_FAILED = 'GithubWebhookFailed';
const SCHEMA_VERSION = 1;

/** GitHub's delivery ids are GUIDs; anything else is refused before it names a stream. */
export const DELIVERY_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;

export interface DeliveryReceived {
  deliveryId: string;
  event: string;
  action?: string;
  installationId?: number;
  hints: GithubHostHint[];
}

export interface DeliveryHandled {
  deliveryId: string;
  outcome: string;
}

export type Claim =
  /** First sight of this delivery (or a retry of one whose handling never finished): carry it out. */
  | { claimed: true }
  /** Already carried out, or being carried out right now by another replica. */
  | { claimed: false; state: 'handled' | 'in-progress' };

export interface DeliveryLogOptions {
  now?: () => Date;
  /** A delivery received this long ago and never marked handled is taken over (its handler died). */
  takeOverAfterMs?: number;
}

export class DeliveryLog {
  private readonly now: () => Date;
  private readonly takeOverAfterMs: number;

  constructor(
    private readonly store: EventStore,
    options: DeliveryLogOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.takeOverAfterMs = options.takeOverAfterMs ?? 60_000;
  }

  private meta(deliveryId: string) {
    return { schemaVersion: SCHEMA_VERSION, actor: 'github', correlationId: deliveryId, at: this.now().toISOString() };
  }

  /** Records the delivery unless it is already recorded; says whether this caller should carry it out. */
  async claim(deliveryId: string, digest: WebhookDigest): Promise<Claim> {
    const stream = DELIVERY_STREAM_PREFIX + deliveryId;
    const data: DeliveryReceived = {
      deliveryId,
      event: digest.event,
      hints: digest.hints,
      ...(digest.action ? { action: digest.action } : {}),
      ...(digest.installationId ? { installationId: digest.installationId } : {}),
    };
    try {
      await this.store.append(
        stream,
        [{ eventId: randomUUID(), type: DELIVERY_RECEIVED, data, metadata: this.meta(deliveryId) }],
        'no_stream',
      );
      return { claimed: true };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
    }
    const recorded = await this.store.readStream(stream);
    if (recorded.some((e) => e.type === DELIVERY_HANDLED)) return { claimed: false, state: 'handled' };
    const last = recorded[recorded.length - 1];
    // A handler that failed (GitHub unreachable, say) left it to a redelivery; one that died left no mark, so wait it out.
    if (last?.type === DELIVERY_FAILED) return { claimed: true };
    const age = last ? this.now().getTime() - Date.parse(last.metadata.at) : 0;
    return age >= this.takeOverAfterMs ? { claimed: true } : { claimed: false, state: 'in-progress' };
  }

  /**
   * Marks the delivery carried out, or failed (a redelivery carries a failed one out again). Two
   * replicas finishing the same taken-over delivery both mark it; readers only ask whether one did.
   */
  async finish(deliveryId: string, outcome: string, how: 'handled' | 'failed'): Promise<void> {
    const data: DeliveryHandled = { deliveryId, outcome };
    const type = how === 'handled' ? DELIVERY_HANDLED : DELIVERY_FAILED;
    await this.store.append(
      DELIVERY_STREAM_PREFIX + deliveryId,
      [{ eventId: randomUUID(), type, data, metadata: this.meta(deliveryId) }],
      'any',
    );
  }
}

/** The hints a recorded delivery carries, for the engine's GitHub host (empty for every other event). */
export const hintsOfRecorded = (e: RecordedEvent): GithubHostHint[] =>
  e.type === DELIVERY_RECEIVED && e.streamId.startsWith(DELIVERY_STREAM_PREFIX) ? (e.data as DeliveryReceived).hints : [];
