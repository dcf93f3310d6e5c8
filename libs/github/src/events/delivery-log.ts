import { createHash, randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision, type RecordedEvent } from '@railyard/eventstore';
import type { GithubHostHint, WebhookDigest } from './webhook-digest';

/**
 * Webhook deliveries recorded in the event store, one small stream per `x-github-delivery` id, so a
 * redelivery is recognised by every API replica and after any restart (docs/github.md,
 * "Recorded once"). The first event says the delivery was received (with its digest, which the engine
 * reads as host hints); the next ones that its commands were carried out, or failed.
 *
 * A delivery id only names one sending: the same event sent again under a fresh id (a replayed
 * request) would carry its command out again. So the command a delivery carries (`commandKey` of its
 * digest: a comment's id and action, a pull request event's own identity) is claimed too, in a stream
 * of its own with the same rules, and a command already carried out is not carried out again.
 */

export const DELIVERY_STREAM_PREFIX = 'github-delivery-';
export const DELIVERY_RECEIVED = 'GithubWebhookReceived';
export const DELIVERY_HANDLED = 'GithubWebhookHandled';
export const DELIVERY_FAILED = 'GithubWebhookFailed';
export const COMMAND_STREAM_PREFIX = 'github-command-';
export const COMMAND_RECEIVED = 'GithubCommandReceived';
export const COMMAND_HANDLED = 'GithubCommandHandled';
export const COMMAND_FAILED = 'GithubCommandFailed';

/** The marks that end a claim, per kind of stream. */
interface Kind {
  handled: string;
  failed: string;
}
const kinds = {
  delivery: { handled: DELIVERY_HANDLED, failed: DELIVERY_FAILED },
  command: { handled: COMMAND_HANDLED, failed: COMMAND_FAILED },
} satisfies Record<string, Kind>;

/** A command key can be long and holds names: its stream is named by its digest. */
export const commandStreamOf = (commandKey: string): string =>
  COMMAND_STREAM_PREFIX + createHash('sha256').update(commandKey).digest('hex').slice(0, 40);

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

export interface CommandReceived {
  commandKey: string;
  /** The delivery that carries it out. */
  deliveryId: string;
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
    const data: DeliveryReceived = {
      deliveryId,
      event: digest.event,
      hints: digest.hints,
      ...(digest.action ? { action: digest.action } : {}),
      ...(digest.installationId ? { installationId: digest.installationId } : {}),
    };
    return this.claimStream(DELIVERY_STREAM_PREFIX + deliveryId, DELIVERY_RECEIVED, data, deliveryId, kinds.delivery);
  }

  /** The same for the command a delivery carries, whichever delivery id it came under. */
  async claimCommand(commandKey: string, deliveryId: string): Promise<Claim> {
    const data: CommandReceived = { commandKey, deliveryId };
    return this.claimStream(commandStreamOf(commandKey), COMMAND_RECEIVED, data, deliveryId, kinds.command);
  }

  /**
   * Marks the delivery carried out, or failed (a redelivery carries a failed one out again). Two
   * replicas finishing the same taken-over delivery both mark it; readers only ask whether one did.
   */
  async finish(deliveryId: string, outcome: string, how: 'handled' | 'failed'): Promise<void> {
    await this.mark(DELIVERY_STREAM_PREFIX + deliveryId, kinds.delivery, deliveryId, outcome, how);
  }

  async finishCommand(commandKey: string, deliveryId: string, outcome: string, how: 'handled' | 'failed'): Promise<void> {
    await this.mark(commandStreamOf(commandKey), kinds.command, deliveryId, outcome, how);
  }

  /**
   * The append is the claim: with `no_stream` the first time, and when taking over a failed or dead
   * handler's claim, at the revision last read. Of two callers, the event store lets one through.
   */
  private async claimStream(stream: string, type: string, data: object, deliveryId: string, kind: Kind): Promise<Claim> {
    const appendAt = async (expected: ExpectedRevision): Promise<boolean> => {
      try {
        await this.store.append(stream, [{ eventId: randomUUID(), type, data: { ...data }, metadata: this.meta(deliveryId) }], expected);
        return true;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        return false;
      }
    };
    if (await appendAt('no_stream')) return { claimed: true };
    const recorded = await this.store.readStream(stream);
    if (recorded.some((e) => e.type === kind.handled)) return { claimed: false, state: 'handled' };
    const last = recorded[recorded.length - 1];
    // A handler that failed (GitHub unreachable, say) left it to a redelivery; one that died left no mark, so wait it out.
    const free =
      last?.type === kind.failed || (last !== undefined && this.now().getTime() - Date.parse(last.metadata.at) >= this.takeOverAfterMs);
    if (free && last && (await appendAt(last.revision))) return { claimed: true };
    return { claimed: false, state: 'in-progress' };
  }

  private async mark(stream: string, kind: Kind, deliveryId: string, outcome: string, how: 'handled' | 'failed'): Promise<void> {
    const data: DeliveryHandled = { deliveryId, outcome };
    const type = how === 'handled' ? kind.handled : kind.failed;
    await this.store.append(stream, [{ eventId: randomUUID(), type, data: { ...data }, metadata: this.meta(deliveryId) }], 'any');
  }
}

/** The hints a recorded delivery carries, for the engine's GitHub host (empty for every other event). */
export const hintsOfRecorded = (e: RecordedEvent): GithubHostHint[] =>
  e.type === DELIVERY_RECEIVED && e.streamId.startsWith(DELIVERY_STREAM_PREFIX) ? (e.data as DeliveryReceived).hints : [];
