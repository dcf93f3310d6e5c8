import type { EventStore, NewEvent } from './port';
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

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<S, C, E, Ctx>,
    private readonly options: {
      context: () => Ctx;
      newEventId: () => string;
      schemaVersion: number;
      now: () => string;
      maxCachedStreams?: number;
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
    const cached = this.cache.get(streamId);
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
        this.remember(streamId, { state, revision: result.nextRevision });
        return { events, position: result.position, state };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= attempts) throw err;
        current = await this.catchUp(streamId);
        caughtUp = true;
      }
    }
  }

  private async catchUp(streamId: string): Promise<Cached<S>> {
    const cached = this.cache.get(streamId);
    const from = cached && cached.revision !== 'no_stream' ? cached.revision + 1 : 0;
    const recorded = await this.store.readStream(streamId, from);
    let state = cached && from > 0 ? cached.state : this.decider.initialState();
    let revision: number | 'no_stream' = from > 0 && cached ? cached.revision : 'no_stream';
    for (const r of recorded) {
      state = this.decider.evolve(state, { type: r.type, data: r.data } as E);
      revision = r.revision;
    }
    const next = { state, revision };
    this.remember(streamId, next);
    return next;
  }

  private remember(streamId: string, entry: Cached<S>): void {
    this.cache.delete(streamId);
    this.cache.set(streamId, entry);
    const max = this.options.maxCachedStreams ?? 1000;
    if (this.cache.size > max) this.cache.delete(this.cache.keys().next().value as string);
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
