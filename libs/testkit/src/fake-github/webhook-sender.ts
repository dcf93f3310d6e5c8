import { createHmac, randomUUID } from 'node:crypto';
import type { SchemaValidator } from './schema-validator';

/** One webhook delivery and what happened to each attempt to deliver it. */
export interface Delivery {
  /** `x-github-delivery`: the same on every redelivery. */
  id: string;
  event: string;
  action: string | null;
  payload: Record<string, unknown>;
  attempts: { status: number | null; error?: string; redelivery: boolean }[];
}

export interface WebhookSenderOptions {
  secret: string;
  url?: string;
  appId: number;
  validator: SchemaValidator | null;
  onViolation: (where: string, errors: string[]) => void;
}

/**
 * Sends webhooks the way GitHub does: a JSON POST with `x-github-event`, `x-github-delivery` and the
 * HMAC-SHA256 of the exact body in `x-hub-signature-256`. Deliveries go out one at a time in the
 * order they happened; a failed one is recorded, not retried (GitHub leaves that to a redelivery).
 */
export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private url: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private paused = false;
  private resume: (() => void) | null = null;

  constructor(private readonly opts: WebhookSenderOptions) {
    this.url = opts.url;
  }

  setUrl(url: string | undefined): void {
    this.url = url;
  }

  emit(event: string, action: string | null, payload: Record<string, unknown>): Delivery {
    const errors = this.opts.validator?.validateWebhook(event, action, payload) ?? [];
    if (errors.length > 0) this.opts.onViolation(`webhook ${event}${action ? `.${action}` : ''}`, errors);
    const delivery: Delivery = { id: randomUUID(), event, action, payload, attempts: [] };
    this.deliveries.push(delivery);
    this.enqueue(delivery, false);
    return delivery;
  }

  /** Sends a recorded delivery again with its original id, as "Redeliver" does on GitHub. */
  redeliver(id: string): Delivery {
    const delivery = this.deliveries.find((d) => d.id === id);
    if (!delivery) throw new Error(`no delivery ${id}`);
    this.enqueue(delivery, true);
    return delivery;
  }

  /** Holds deliveries back (they queue up) until resumed: a receiver that is down, or a slow hookshot. */
  pause(): void {
    this.paused = true;
  }

  unpause(): void {
    this.paused = false;
    this.resume?.();
    this.resume = null;
  }

  /** Resolves once every delivery queued so far has been attempted. */
  async settled(): Promise<void> {
    while (this.pending > 0) await this.queue;
  }

  private enqueue(delivery: Delivery, redelivery: boolean): void {
    this.pending += 1;
    this.queue = this.queue.then(async () => {
      if (this.paused) await new Promise<void>((resolve) => (this.resume = resolve));
      try {
        delivery.attempts.push(await this.send(delivery, redelivery));
      } finally {
        this.pending -= 1;
      }
    });
  }

  private async send(delivery: Delivery, redelivery: boolean): Promise<Delivery['attempts'][number]> {
    if (this.url === undefined) return { status: null, error: 'no webhook URL configured', redelivery };
    const body = JSON.stringify(delivery.payload);
    const hmac = (algorithm: string) => createHmac(algorithm, this.opts.secret).update(body).digest('hex');
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'GitHub-Hookshot/fake',
          'x-github-event': delivery.event,
          'x-github-delivery': delivery.id,
          'x-github-hook-id': '1',
          'x-github-hook-installation-target-type': 'integration',
          'x-github-hook-installation-target-id': String(this.opts.appId),
          'x-hub-signature': `sha1=${hmac('sha1')}`,
          'x-hub-signature-256': `sha256=${hmac('sha256')}`,
        },
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      return { status: response.status, redelivery };
    } catch (err) {
      return { status: null, error: String(err), redelivery };
    }
  }
}
