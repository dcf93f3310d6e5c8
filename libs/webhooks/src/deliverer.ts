import { backoffDelay, type BackoffPolicy, type EventStore, type RecordedEvent } from '@railyard/eventstore';
import { casesOf, type CaseRecord, type TestResultsUploaded } from '@railyard/testhealth';
import type { DeliveryStore } from './delivery-store';
import { ENDPOINTS_STREAM, type Endpoint } from './endpoints';
import type { EndpointService } from './endpoint-service';
import { dashboardLinks, WebhookMapper } from './mapping';
import type { WebhookMessage } from './messages';
import http from 'node:http';
import https from 'node:https';
import { sendOnce, type SendOptions, type SendResult } from './send';
import { messageIdOf, signedHeaders } from './signing';
import { SLACK_EVENT_TYPES, slackMessageOf } from './slack';
import type { AddressPolicy, Lookup } from './ssrf';

/**
 * About a day of retries: 30 s doubling up to 4 h between tries (times 1 to 2 at random), 14 tries
 * after the first. When the last fails the endpoint is disabled (docs/webhooks.md, "Retries").
 * RAILYARD_WEBHOOKS_RETRY_MIN_MS and RAILYARD_WEBHOOKS_RETRY_ATTEMPTS change it (libs/runtime).
 */
export const DEFAULT_RETRY: BackoffPolicy = { minMs: 30_000, maxMs: 4 * 3600_000, maxAttempts: 15 };

/** Who delivers to which endpoint: every one in the embedded shape, the lease holder's in the distributed one. */
export interface EndpointLeases {
  /** Whether this process may deliver to the endpoint now (acquires or renews its lease). */
  hold(endpointId: string): Promise<boolean>;
  release(endpointId: string): Promise<void>;
}

export const ownEveryEndpoint: EndpointLeases = { hold: async () => true, release: async () => undefined };

export interface DelivererOptions {
  eventStore: EventStore;
  endpoints: EndpointService;
  store: DeliveryStore;
  policy: AddressPolicy;
  /** The dashboard's public address, for the links in every message. */
  publicUrl: () => string;
  leases?: EndpointLeases;
  retry?: BackoffPolicy;
  timeoutMs?: number;
  /** How often an idle endpoint looks for new events, and the endpoint list for changes. */
  pollMs?: number;
  lookup?: Lookup;
  /** The blob store's read: the cases of large test uploads, for test_case events' names and rates. */
  loadBlob?: (digest: string) => Promise<Buffer | null>;
  now?: () => Date;
  onError?: (err: Error, endpointId?: string) => void;
  /** Run before the first endpoint is served, again on every tick until it succeeds (the secrets' reseal, D249). */
  prepare?: () => Promise<void>;
  /** Called after each message an endpoint took (2xx): the benchmark measures from it. */
  onDelivered?: (endpointId: string, message: WebhookMessage) => void;
}

class Stopped extends Error {}

/** How often a busy endpoint's checkpoint is written (and at the end of every batch read). */
const CHECKPOINT_EVERY_MS = 250;

const eventsOf = (endpoint: Endpoint): readonly string[] =>
  endpoint.events.length > 0 ? endpoint.events : endpoint.kind === 'slack' ? SLACK_EVENT_TYPES : [];

/** Whether the endpoint may be sent a test_case event: only then does its mapper fold the test-health streams. */
const wantsTestCases = (endpoint: Endpoint): boolean => {
  const events = eventsOf(endpoint);
  return events.length === 0 || events.some((t) => t.startsWith('test_case.'));
};

const matches = (endpoint: Endpoint, m: WebhookMessage): boolean => {
  const events = eventsOf(endpoint);
  if (events.length > 0 && !events.includes(m.type)) return false;
  if (
    endpoint.repos.length > 0 &&
    !endpoint.repos.some((r) => r.host === m.repo.host && r.owner === m.repo.owner && r.name === m.repo.name)
  )
    return false;
  // A test belongs to a repository, not to a queue's branch: the branch filter does not hold its events back.
  return endpoint.targetBranches.length === 0 || m.targetBranch === '' || endpoint.targetBranches.includes(m.targetBranch);
};

/** The body an endpoint is sent for a message: Trunk's payload, or the Slack text; undefined when Slack has nothing to say. */
export const bodyFor = (endpoint: Endpoint, m: WebhookMessage): string | undefined => {
  if (endpoint.kind === 'slack') {
    const slack = slackMessageOf(m);
    return slack ? JSON.stringify(slack) : undefined;
  }
  return JSON.stringify(m.payload);
};

/** Sends one body to an endpoint now, signed with its current secret: what every attempt and "send again" do. */
export const deliverBody = (
  endpoint: Endpoint,
  messageId: string,
  body: string,
  o: { policy: AddressPolicy; timeoutMs: number; now: () => Date; signal?: AbortSignal; lookup?: Lookup; agents?: SendOptions['agents'] },
): Promise<SendResult> =>
  sendOnce(endpoint.url, body, signedHeaders(endpoint.secret, messageId, Math.floor(o.now().getTime() / 1000), body), {
    policy: o.policy,
    timeoutMs: o.timeoutMs,
    ...(o.agents ? { agents: o.agents } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.lookup ? { lookup: o.lookup } : {}),
  });

/**
 * One endpoint's delivery: reads the whole log in order (the mapper needs it from the start), sends
 * what the endpoint wants of what lies after its checkpoint one message at a time, and moves the
 * checkpoint on only once the receiver took it. A failure is retried with backoff and holds back the
 * messages after it (order per PR), but only this endpoint's: each runs on its own.
 */
class EndpointWorker {
  private readonly abort = new AbortController();
  // One connection per endpoint, kept open between messages: a TCP (and TLS) handshake per message would cost more than the message.
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 1 }),
  };
  private readonly done: Promise<void>;

  constructor(
    readonly endpoint: Endpoint,
    private readonly o: Required<Pick<DelivererOptions, 'retry' | 'timeoutMs' | 'pollMs' | 'now'>> & DelivererOptions,
  ) {
    this.done = this.run().catch((err: unknown) => {
      if (!(err instanceof Stopped)) this.o.onError?.(err as Error, endpoint.endpointId);
    });
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.abort.signal.aborted) return reject(new Stopped());
      const timer = setTimeout(resolve, ms);
      this.abort.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(new Stopped());
        },
        { once: true },
      );
    });
  }

  private async run(): Promise<void> {
    const { endpoint, o } = this;
    const id = endpoint.endpointId;
    const stored = await o.store.checkpoint(id);
    const checkpoint = stored === undefined ? endpoint.startAfter : stored;
    const tests = wantsTestCases(endpoint);
    const mapper = new WebhookMapper(dashboardLinks(o.publicUrl()), { tests });
    let cursor: bigint | null = null;
    let savedAt = performance.now();
    for (;;) {
      if (this.abort.signal.aborted) throw new Stopped();
      const batch = await o.eventStore.readAll(cursor, 500);
      if (batch.length === 0) {
        await this.sleep(o.pollMs);
        continue;
      }
      for (const event of batch) {
        const previous = cursor;
        cursor = event.position;
        if (event.streamId === ENDPOINTS_STREAM && (checkpoint === null || event.position > checkpoint))
          await this.changed(event, previous !== null && (checkpoint === null || previous > checkpoint) ? previous : null);
        const messages = mapper.apply(event, tests ? await this.blobCases(event) : undefined);
        if (checkpoint !== null && event.position <= checkpoint) continue;
        for (const m of messages) {
          if (!matches(endpoint, m)) continue;
          await this.deliver(m);
          o.onDelivered?.(id, m);
        }
        // Not after every message: a checkpoint that lags only means a crash sends those again (same ids).
        if (performance.now() - savedAt >= CHECKPOINT_EVERY_MS) {
          await o.store.saveCheckpoint(id, event.position);
          savedAt = performance.now();
        }
      }
      if (cursor !== null && (checkpoint === null || cursor > checkpoint)) {
        await o.store.saveCheckpoint(id, cursor);
        savedAt = performance.now();
      }
    }
  }

  /**
   * Stops this worker at a change of its endpoint it was not started with (a new secret, URL or
   * filter): what the log holds after the change is for the new version, which the deliverer's next
   * tick starts from the position before it. Without this, a message of an event recorded just after
   * a rotation could still go out signed with the old secret.
   */
  private async changed(event: RecordedEvent, previous: bigint | null): Promise<void> {
    const id = this.endpoint.endpointId;
    if ((event.data as { endpointId?: unknown }).endpointId !== id) return;
    if ((await this.o.endpoints.get(id))?.version === this.endpoint.version) return;
    // Everything before the change is done: the next worker must not send it again under the new version.
    if (previous !== null) await this.o.store.saveCheckpoint(id, previous);
    throw new Stopped();
  }

  /** The cases of a test upload kept in the blob store; undefined when inline, not an upload, or unreadable. */
  private async blobCases(event: RecordedEvent): Promise<CaseRecord[] | undefined> {
    if (event.type !== 'TestResultsUploaded' || !this.o.loadBlob) return undefined;
    const ref = (event.data as TestResultsUploaded['data']).cases;
    if ('inline' in ref) return undefined;
    try {
      return await casesOf(ref, this.o.loadBlob);
    } catch (err) {
      // A missing blob costs the names and rates of its tests, not the delivery of everything after it.
      this.o.onError?.(err as Error, this.endpoint.endpointId);
      return undefined;
    }
  }

  private async deliver(m: WebhookMessage): Promise<void> {
    const { endpoint, o } = this;
    const body = bodyFor(endpoint, m);
    if (body === undefined) return;
    const messageId = messageIdOf(endpoint.endpointId, m.eventId, m.index);
    for (let attempt = 1; ; attempt++) {
      if (this.abort.signal.aborted) throw new Stopped();
      const result = await deliverBody(endpoint, messageId, body, {
        policy: o.policy,
        timeoutMs: o.timeoutMs,
        now: o.now,
        signal: this.abort.signal,
        agents: this.agents,
        ...(o.lookup ? { lookup: o.lookup } : {}),
      });
      if (this.abort.signal.aborted) throw new Stopped();
      await o.store.record({
        endpointId: endpoint.endpointId,
        messageId,
        eventType: m.type,
        position: m.position.toString(),
        attempt,
        status: result.status,
        ok: result.ok,
        ...(result.error ? { error: result.error } : {}),
        latencyMs: result.latencyMs,
        responseExcerpt: result.responseExcerpt,
        at: o.now().toISOString(),
        body,
      });
      if (result.ok) return;
      if (attempt >= o.retry.maxAttempts) {
        const why = result.status !== null ? `HTTP ${result.status}` : (result.error ?? 'no answer');
        await o.endpoints.execute(
          {
            type: 'disable',
            endpointId: endpoint.endpointId,
            reason: 'DELIVERY_FAILED',
            detail: `${attempt} tries of ${messageId} failed; last: ${why}`,
          },
          { actor: 'webhooks', correlationId: messageId },
        );
        throw new Stopped();
      }
      await this.sleep(backoffDelay(attempt, o.retry));
    }
  }
}

/**
 * Keeps one worker per enabled endpoint this process holds the lease of, restarting it when the
 * endpoint changes (a new version: URL, filter, secret) and stopping it when it is disabled, deleted
 * or its lease is lost. Runs in the embedded server and in every API replica of the distributed shape.
 */
export class WebhookDeliverer {
  private readonly workers = new Map<string, EndpointWorker>();
  private readonly o: Required<Pick<DelivererOptions, 'retry' | 'timeoutMs' | 'pollMs' | 'now'>> & DelivererOptions;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private ticking: Promise<void> = Promise.resolve();
  private prepared = false;

  constructor(options: DelivererOptions) {
    this.o = { retry: DEFAULT_RETRY, timeoutMs: 10_000, pollMs: 100, now: () => new Date(), ...options };
  }

  start(): void {
    const loop = (): void => {
      if (this.stopped) return;
      this.ticking = this.tick()
        .catch((err: unknown) => this.o.onError?.(err as Error))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, Math.max(this.o.pollMs * 5, 200));
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    const ids = [...this.workers.keys()];
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    this.workers.clear();
    await Promise.all(ids.map((id) => (this.o.leases ?? ownEveryEndpoint).release(id)));
  }

  private async tick(): Promise<void> {
    if (this.o.prepare && !this.prepared) {
      await this.o.prepare();
      this.prepared = true;
    }
    const leases = this.o.leases ?? ownEveryEndpoint;
    const endpoints = new Map((await this.o.endpoints.list()).map((e) => [e.endpointId, e]));
    for (const [id, worker] of this.workers) {
      const now = endpoints.get(id);
      if (!now || !now.enabled || now.version !== worker.endpoint.version) {
        this.workers.delete(id);
        await worker.stop();
        if (!now) await this.o.store.forget(id);
      }
    }
    for (const endpoint of endpoints.values()) {
      if (this.stopped || !endpoint.enabled) continue;
      const held = await leases.hold(endpoint.endpointId);
      const worker = this.workers.get(endpoint.endpointId);
      if (!held) {
        if (worker) {
          this.workers.delete(endpoint.endpointId);
          await worker.stop();
        }
        continue;
      }
      if (!worker) this.workers.set(endpoint.endpointId, new EndpointWorker(endpoint, this.o));
    }
  }
}
