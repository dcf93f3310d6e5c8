import { SubscriptionSet } from '../shared/subscription-set';
import type { AppendStreamState, KurrentDBClient } from '@kurrent/kurrentdb-client';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent, RecordedEvent, SubscribeOptions, Subscription } from '../port';
import { WrongExpectedRevisionError } from '../port';
import type { ExpiresStreamsByAge, StreamMaxAge } from '../retention-port';
import { assertAppendable } from '../shared/append-rules';
import { defaultBackoff, type BackoffPolicy } from '../shared/backoff';
import { kurrentdb } from './client';
import { toBigInt, toEventData, toRecorded } from './kurrent-mapping';
import { KurrentSubscription } from './kurrent-subscription';
import { expireIfCreated } from './stream-max-age';

export interface KurrentEventStoreOptions {
  /** e.g. `kurrentdb://admin:changeit@localhost:2113?tls=false`. */
  url: string;
  /** How a dropped live subscription is re-established. */
  resubscribe?: Partial<BackoffPolicy>;
  /** Streams given a `$maxAge` as they are created: commit statuses under RAILYARD_CI_RETENTION_DAYS (D314). */
  streamMaxAge?: StreamMaxAge;
}

/**
 * The distributed event store. Positions are $all commit positions. Event ids must be UUIDs, and
 * KurrentDB only recognises a repeated id within the same stream.
 */
export class KurrentEventStore implements EventStore, ExpiresStreamsByAge {
  readonly streamMaxAge: StreamMaxAge | null;
  private readonly client: KurrentDBClient;
  private readonly backoff: BackoffPolicy;
  private readonly subscriptions = new SubscriptionSet();
  private closed = false;

  constructor(options: KurrentEventStoreOptions) {
    this.client = kurrentdb().KurrentDBClient.connectionString(options.url);
    this.backoff = { ...defaultBackoff, ...options.resubscribe };
    this.streamMaxAge = options.streamMaxAge ?? null;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    assertAppendable(streamId, events, expected);
    const { ANY, NO_STREAM, WrongExpectedVersionError } = kurrentdb();
    const streamState: AppendStreamState = expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : BigInt(expected);
    try {
      const result = await this.client.appendToStream(streamId, events.map(toEventData), { streamState });
      const nextRevision = Number(result.nextExpectedRevision);
      // If this throws the events are in, without the age: a retry of the same ids is answered as the
      // same first append (the server recognises them), so it sets it then.
      await expireIfCreated(this.client, this.streamMaxAge, streamId, nextRevision, events.length);
      const commit = result.position?.commit;
      return { nextRevision, position: commit === undefined ? await this.positionOf(streamId, nextRevision) : toBigInt(commit) };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      // The server answers a repeat whose stream has moved on with a conflict; it is still a repeat.
      const original = await this.findRepeat(streamId, events, expected);
      if (original) return original;
      const state: unknown = err.actualState;
      const actual = typeof state === 'bigint' || typeof state === 'number' ? Number(state) : 'no_stream';
      throw new WrongExpectedRevisionError(streamId, expected, actual);
    }
  }

  async readStream(streamId: string, fromRevision = 0, maxCount?: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    return this.readStreamRange(streamId, Math.max(0, fromRevision), maxCount ?? Number.MAX_SAFE_INTEGER);
  }

  async readAll(fromPosition: bigint | null, maxCount: number): Promise<RecordedEvent[]> {
    this.assertOpen();
    if (maxCount <= 0) return [];
    // Reading $all from a position includes the event at it; one extra keeps the page full.
    const { excludeSystemEvents, FORWARDS, START } = kurrentdb();
    const events: RecordedEvent[] = [];
    const read = this.client.readAll({
      fromPosition: fromPosition === null ? START : { commit: fromPosition, prepare: fromPosition },
      direction: FORWARDS,
      maxCount: fromPosition === null ? maxCount : maxCount + 1,
      filter: excludeSystemEvents(),
    });
    for await (const resolved of read) {
      const event = toRecorded(resolved);
      if (!event || (fromPosition !== null && event.position <= fromPosition)) continue;
      events.push(event);
      if (events.length === maxCount) break;
    }
    return events;
  }

  async headPosition(): Promise<bigint | null> {
    this.assertOpen();
    const { BACKWARDS, END, excludeSystemEvents } = kurrentdb();
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, filter: excludeSystemEvents() });
    for await (const resolved of read) {
      const event = toRecorded(resolved);
      if (event) return event.position;
    }
    return null;
  }

  subscribe(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const subscription = new KurrentSubscription(this.client, (after, max) => this.readAll(after, max), options, this.backoff);
    return this.subscriptions.track(subscription);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.subscriptions.closeAll();
    this.closed = true;
    await this.client.dispose();
  }

  private async readStreamRange(streamId: string, from: number, maxCount: number): Promise<RecordedEvent[]> {
    const { FORWARDS, StreamNotFoundError } = kurrentdb();
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { fromRevision: BigInt(from), direction: FORWARDS, maxCount })) {
        const event = toRecorded(resolved);
        if (event) events.push(event);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return events;
  }

  /** The original result when `events` already sit in the stream right after `expected`. */
  private async findRepeat(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult | null> {
    if (expected === 'any') return null;
    const start = expected === 'no_stream' ? 0 : expected + 1;
    const stored = await this.readStreamRange(streamId, start, events.length);
    const last = stored[stored.length - 1];
    const repeats = stored.length === events.length && stored.every((s, i) => s.eventId === events[i]?.eventId);
    return repeats && last ? { nextRevision: last.revision, position: last.position } : null;
  }

  private async positionOf(streamId: string, revision: number): Promise<bigint> {
    const [event] = await this.readStreamRange(streamId, revision, 1);
    if (!event) throw new Error(`stream ${streamId}: revision ${revision} not found right after appending it`);
    return event.position;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}
