import type { EventStore, NewEvent, RecordedEvent } from './port';
import { WrongExpectedRevisionError } from './port';

export interface Decider<S, C, E extends { type: string; data: unknown }, Ctx> {
  initialState: () => S;
  /** May reuse its input (see libs/domain state.ts): the handler only ever keeps the returned state. */
  evolve: (state: S, event: E) => S;
  decide: (state: S, command: C, ctx: Ctx) => E[];
}

export interface CommandMeta {
  actor: string;
  correlationId: string;
  causationId?: string;
}

export interface HandlerResult<S, E> {
  events: E[];
  /** Position of the last appended event; null when the command changed nothing. */
  position: bigint | null;
  state: S;
}

interface Cached<S> {
  state: S;
  revision: number | 'no_stream';
  /** The id of the event at `revision`: what a saved copy of the state is checked against when it is taken back. */
  eventId?: string;
  /** Raised on every change, so a saver takes only the streams that moved since its last save. */
  version: number;
  /** What the state costs to keep (options.weigh), counted against options.maxCachedWeight. */
  weight: number;
}

/** Events read per query while a stream is folded: a page's events are garbage once folded (D313). */
const STREAM_PAGE = 1000;

/** A stream's folded state as `saved` copies it, with the revision it covers and the id of the event there. */
export interface SavedStream<B> {
  streamId: string;
  revision: number;
  eventId: string;
  body: B;
}

/**
 * Load → decide → append with the expected revision. Commands on one stream are serialised in this
 * process; across processes the expected-revision check is the guard, and a conflict catches up on
 * the missing events and decides again. The folded state is cached per stream so a long stream is
 * not re-read per command.
 */
export class CommandHandler<S, C, E extends { type: string; data: unknown }, Ctx> {
  private readonly cache = new Map<string, Cached<S>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Streams taken from a saved copy and not yet read: their event at `revision` must still be `eventId`. */
  private readonly unchecked = new Set<string>();
  private version = 0;
  private weight = 0;

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<S, C, E, Ctx>,
    private readonly options: {
      context: () => Ctx;
      newEventId: () => string;
      schemaVersion: number;
      now: () => string;
      /** The cache's budget with the default weight of 1 per stream. */
      maxCachedStreams?: number;
      /**
       * What one folded state costs to keep, and the cache's budget in that unit (D321): a budget in
       * streams alone evicts small idle states as soon as there are more streams than it, and then
       * every touch of each one folds its stream again.
       */
      weigh?: (state: S) => number;
      maxCachedWeight?: number;
      maxAttempts?: number;
    },
  ) {}

  execute(streamId: string, command: C, meta: CommandMeta): Promise<HandlerResult<S, E>> {
    return this.serialised(streamId, () => this.run(streamId, command, meta));
  }

  /** The stream's current state, caught up with every process's appends. */
  read(streamId: string): Promise<S> {
    return this.serialised(streamId, async () => (await this.catchUp(streamId)).state);
  }

  private async run(streamId: string, command: C, meta: CommandMeta): Promise<HandlerResult<S, E>> {
    const attempts = this.options.maxAttempts ?? 20;
    // A state taken from a saved copy is never decided on before the log has confirmed it.
    const cached = this.unchecked.has(streamId) ? undefined : this.cache.get(streamId);
    let current = cached ?? (await this.catchUp(streamId));
    let caughtUp = cached === undefined;
    for (let attempt = 1; ; attempt++) {
      let events: E[];
      try {
        events = this.decider.decide(current.state, command, this.options.context());
      } catch (err) {
        // A rule broken against a cached state may only be another writer's events we have not read yet
        // (the engine moved the PR on): decide once more on the stream as it is before refusing.
        if (caughtUp) throw err;
        current = await this.catchUp(streamId);
        caughtUp = true;
        continue;
      }
      if (events.length === 0) {
        // Nothing to do on a cached state may be something to do on the stream as it is (another
        // writer cancelled the PR that this submission finds still queued): look once more first.
        if (!caughtUp) {
          current = await this.catchUp(streamId);
          caughtUp = true;
          continue;
        }
        return { events, position: null, state: current.state };
      }
      const at = this.options.now();
      const batch: NewEvent[] = events.map((e) => ({
        eventId: this.options.newEventId(),
        type: e.type,
        data: e.data,
        // Picked field by field: callers pass richer objects (a route context) and only these belong in the log.
        metadata: {
          schemaVersion: this.options.schemaVersion,
          at,
          actor: meta.actor,
          correlationId: meta.correlationId,
          ...(meta.causationId ? { causationId: meta.causationId } : {}),
        },
      }));
      try {
        const result = await this.store.append(streamId, batch, current.revision);
        const state = events.reduce(this.decider.evolve, current.state);
        this.remember(streamId, { state, revision: result.nextRevision, eventId: batch[batch.length - 1]?.eventId });
        return { events, position: result.position, state };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= attempts) throw err;
        current = await this.catchUp(streamId);
        caughtUp = true;
      }
    }
  }

  private async catchUp(streamId: string): Promise<Cached<S>> {
    let cached = this.cache.get(streamId);
    if (cached && this.unchecked.delete(streamId) && cached.revision !== 'no_stream') {
      // A saved copy: read from its own revision and keep it only if the log still holds its event there.
      const first = await this.store.readStream(streamId, cached.revision, STREAM_PAGE);
      if (first[0]?.eventId === cached.eventId) {
        const folded = this.fold(streamId, cached, first.slice(1));
        return first.length < STREAM_PAGE ? folded : await this.foldRest(streamId, folded);
      }
      this.cache.delete(streamId);
      cached = undefined;
    }
    const from = cached && cached.revision !== 'no_stream' ? cached.revision + 1 : 0;
    const first = await this.store.readStream(streamId, from, STREAM_PAGE);
    const folded = this.fold(streamId, from > 0 ? cached : undefined, first);
    // A short tail (every command's case) is folded with no further await, as it always was.
    return first.length < STREAM_PAGE ? folded : await this.foldRest(streamId, folded);
  }

  /**
   * Folds the rest of a stream a page at a time after a full first page: a long stream folded from
   * the start (a first start, a state evicted) holds one page of events, not the whole stream (D313:
   * twenty queue streams read whole at once were most of a 2 GB peak).
   */
  private async foldRest(streamId: string, folded: Cached<S>): Promise<Cached<S>> {
    let current = folded;
    for (;;) {
      if (current.revision === 'no_stream') return current;
      const page = await this.store.readStream(streamId, current.revision + 1, STREAM_PAGE);
      current = this.fold(streamId, current, page);
      if (page.length < STREAM_PAGE) return current;
    }
  }

  private fold(streamId: string, base: Cached<S> | undefined, recorded: RecordedEvent[]): Cached<S> {
    let state = base ? base.state : this.decider.initialState();
    let revision: number | 'no_stream' = base ? base.revision : 'no_stream';
    let eventId = base?.eventId;
    for (const r of recorded) {
      state = this.decider.evolve(state, { type: r.type, data: r.data } as E);
      revision = r.revision;
      eventId = r.eventId;
    }
    // Nothing new is no change: the version stays, so a saver does not copy the state again.
    return this.remember(streamId, { state, revision, eventId }, recorded.length > 0 || base === undefined ? undefined : base.version);
  }

  /**
   * Copies of the states that changed since `since` (a version this method answered before; 0 for all),
   * each made by `copy` in this one turn, so none holds half a command. Answers the version they cover.
   */
  saved<B>(since: number, copy: (state: S) => B): { version: number; streams: SavedStream<B>[] } {
    const streams: SavedStream<B>[] = [];
    for (const [streamId, c] of this.cache) {
      if (c.version <= since || c.revision === 'no_stream' || c.eventId === undefined || this.unchecked.has(streamId)) continue;
      streams.push({ streamId, revision: c.revision, eventId: c.eventId, body: copy(c.state) });
    }
    return { version: this.version, streams };
  }

  /** Takes back a saved state; it is used once a read of the stream confirms its event (else the stream is folded from the start). */
  resume(saved: Omit<SavedStream<S>, 'body'> & { state: S }): void {
    // Version 0: unchanged since any save, so it is not written back until it moves.
    this.remember(saved.streamId, { state: saved.state, revision: saved.revision, eventId: saved.eventId }, 0);
    this.unchecked.add(saved.streamId);
  }

  private remember(streamId: string, entry: Omit<Cached<S>, 'version' | 'weight'>, version = ++this.version): Cached<S> {
    const kept = { ...entry, version, weight: this.options.weigh ? this.options.weigh(entry.state) : 1 };
    this.weight -= this.cache.get(streamId)?.weight ?? 0;
    this.cache.delete(streamId);
    this.cache.set(streamId, kept);
    this.weight += kept.weight;
    const max = this.options.maxCachedWeight ?? this.options.maxCachedStreams ?? 1000;
    // The least recently used go first; the state just remembered stays whatever it weighs.
    while (this.weight > max && this.cache.size > 1) {
      const oldest = this.cache.keys().next().value as string;
      this.weight -= this.cache.get(oldest)?.weight ?? 0;
      this.cache.delete(oldest);
      this.unchecked.delete(oldest);
    }
    return kept;
  }

  private serialised<T>(streamId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(streamId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.locks.set(streamId, tail);
    void tail.then(() => {
      if (this.locks.get(streamId) === tail) this.locks.delete(streamId);
    });
    return next;
  }
}
