import type { Client, ClientConfig } from 'pg';
import { pg } from './pg';
import type { AppendSignal } from '../shared/append-signal';
import { backoffDelay, type BackoffPolicy } from '../shared/backoff';

/**
 * One LISTEN connection per store object, turning NOTIFYs of the insert trigger into wake-ups of
 * the store's subscriptions. It is only a wake-up: notifications sent while the connection is down
 * are lost, so every (re)connect wakes the subscriptions once to catch up by reading, and they poll
 * anyway. A dropped connection is reopened with backoff until the store closes.
 */
export class AppendListener {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private attempts = 0;
  private stopped = false;
  private started = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly channel: string,
    private readonly signal: AppendSignal,
    private readonly backoff: BackoffPolicy,
  ) {}

  /** Connects in the background; idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retry = null;
    if (this.stopped) return;
    const client = new (pg().Client)(this.config);
    let lost = false;
    const onLost = (): void => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => this.signal.notify(headOf(message.payload)));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch {
      onLost();
      return;
    }
    if (this.stopped || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.attempts = 0;
    // Appends made while nobody listened sent notifications nobody heard.
    this.signal.notify();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retry) return;
    this.attempts += 1;
    this.retry = setTimeout(() => void this.connect(), backoffDelay(this.attempts, this.backoff));
  }
}

/** The trigger's payload is the last position its statement inserted (before migration 3: empty). */
export function headOf(payload: string | undefined): bigint | null {
  return payload !== undefined && /^[1-9][0-9]{0,18}$/.test(payload) ? BigInt(payload) : null;
}
