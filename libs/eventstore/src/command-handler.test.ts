import { CommandHandler, type Decider } from './command-handler';
import { MemoryEventStore } from './memory/memory-event-store';

/** A counter stream: the smallest decider that shows the handler's behaviour. */
type Ev = { type: 'Added'; data: { by: number } };
type Cmd = { add: number };
const counter: Decider<number, Cmd, Ev, object> = {
  initialState: () => 0,
  evolve: (s, e) => s + e.data.by,
  decide: (_s, c) => (c.add === 0 ? [] : [{ type: 'Added', data: { by: c.add } }]),
};

let ids = 0;
const handlerOn = (store: MemoryEventStore) =>
  new CommandHandler(store, counter, {
    context: () => ({}),
    newEventId: () => `e${++ids}`,
    schemaVersion: 1,
    now: () => '2026-01-01T00:00:00.000Z',
  });

/** A store that answers every readStream as given and records the pages asked for. */
class RecordingReads extends MemoryEventStore {
  readonly reads: { from: number | undefined; max: number | undefined; got: number }[] = [];
  override async readStream(streamId: string, fromRevision?: number, maxCount?: number) {
    const events = await super.readStream(streamId, fromRevision, maxCount);
    this.reads.push({ from: fromRevision, max: maxCount, got: events.length });
    return events;
  }
}

const appendAdds = async (store: MemoryEventStore, streamId: string, count: number): Promise<void> => {
  const events = Array.from({ length: count }, (_, i) => ({
    eventId: `seed-${streamId}-${i}`,
    type: 'Added',
    data: { by: 1 },
    metadata: { schemaVersion: 1, at: '2026-01-01T00:00:00.000Z', actor: 'a', correlationId: 'c' },
  }));
  await store.append(streamId, events, 'no_stream');
};

describe('CommandHandler', () => {
  it('when a stream longer than a page is folded, then it is read a page at a time and the state covers every event', async () => {
    const store = new RecordingReads();
    await appendAdds(store, 's', 2500);
    expect(await handlerOn(store).read('s')).toBe(2500);
    expect(store.reads).toEqual([
      { from: 0, max: 1000, got: 1000 },
      { from: 1000, max: 1000, got: 1000 },
      { from: 2000, max: 1000, got: 500 },
    ]);
  });

  it('when a saved state is taken back behind a long tail, then the tail is folded a page at a time', async () => {
    const store = new RecordingReads();
    await appendAdds(store, 's', 1500);
    const [tenth] = await store.readStream('s', 9, 1);
    const handler = handlerOn(store);
    handler.resume({ streamId: 's', revision: 9, eventId: tenth?.eventId ?? '', state: 10 });
    store.reads.length = 0;
    expect(await handler.read('s')).toBe(1500);
    expect(store.reads).toEqual([
      { from: 9, max: 1000, got: 1000 },
      { from: 1009, max: 1000, got: 491 },
    ]);
  });

  it('when the caller passes a richer meta object, then only actor, correlation and causation ids reach the event metadata', async () => {
    const store = new MemoryEventStore();
    const richMeta = { actor: 'ci', correlationId: 'c1', req: { socket: {} }, res: {} };
    await handlerOn(store).execute('s', { add: 1 }, richMeta);
    const [event] = await store.readStream('s');
    expect(event?.metadata).toEqual({ schemaVersion: 1, at: '2026-01-01T00:00:00.000Z', actor: 'ci', correlationId: 'c1' });
  });

  it('when a command decides nothing, then nothing is appended and the position is null', async () => {
    const store = new MemoryEventStore();
    const result = await handlerOn(store).execute('s', { add: 0 }, { actor: 'a', correlationId: 'c' });
    expect(result.position).toBeNull();
    expect(await store.readStream('s')).toEqual([]);
  });

  it('when another process appended to the stream meanwhile, then the handler catches up and decides again', async () => {
    const store = new MemoryEventStore();
    const mine = handlerOn(store);
    const theirs = handlerOn(store);
    await mine.execute('s', { add: 1 }, { actor: 'a', correlationId: 'c' });
    await theirs.execute('s', { add: 10 }, { actor: 'b', correlationId: 'd' });
    const result = await mine.execute('s', { add: 100 }, { actor: 'a', correlationId: 'e' });
    expect(result.state).toBe(111);
    expect((await store.readStream('s')).map((e) => e.revision)).toEqual([0, 1, 2]);
  });

  it('when a rule fails on the cached state but another process moved the stream on, then the handler catches up and decides again', async () => {
    const store = new MemoryEventStore();
    const strict: Decider<number, Cmd, Ev, object> = {
      ...counter,
      decide: (s, c) => {
        if (c.add < 0 && s + c.add < 0) throw new Error('would go below zero');
        return counter.decide(s, c, {});
      },
    };
    const options = { context: () => ({}), newEventId: () => `e${++ids}`, schemaVersion: 1, now: () => '2026-01-01T00:00:00.000Z' };
    const mine = new CommandHandler(store, strict, options);
    const theirs = new CommandHandler(store, strict, options);
    await mine.execute('s', { add: 1 }, { actor: 'a', correlationId: 'c' });
    await theirs.execute('s', { add: 5 }, { actor: 'b', correlationId: 'd' });
    const result = await mine.execute('s', { add: -3 }, { actor: 'a', correlationId: 'e' });
    expect(result.state).toBe(3);
    await expect(mine.execute('s', { add: -10 }, { actor: 'a', correlationId: 'f' })).rejects.toThrow('would go below zero');
  });

  it('when a command is a no-op on the cached state but another process moved the stream on, then the handler decides on the stream as it is', async () => {
    const store = new MemoryEventStore();
    // "Set to at least 1": nothing to do on a state of 1 or more.
    const atLeastOne: Decider<number, Cmd, Ev, object> = {
      ...counter,
      decide: (s) => (s >= 1 ? [] : [{ type: 'Added', data: { by: 1 - s } }]),
    };
    const options = { context: () => ({}), newEventId: () => `e${++ids}`, schemaVersion: 1, now: () => '2026-01-01T00:00:00.000Z' };
    const mine = new CommandHandler(store, atLeastOne, options);
    await mine.execute('s', { add: 0 }, { actor: 'a', correlationId: 'c' });
    await handlerOn(store).execute('s', { add: -1 }, { actor: 'b', correlationId: 'd' });
    const result = await mine.execute('s', { add: 0 }, { actor: 'a', correlationId: 'e' });
    expect(result.state).toBe(1);
    expect((await store.readStream('s')).map((e) => e.data)).toEqual([{ by: 1 }, { by: -1 }, { by: 1 }]);
  });

  it('when many commands hit one stream at once, then each is applied exactly once', async () => {
    const store = new MemoryEventStore();
    const handlers = [handlerOn(store), handlerOn(store), handlerOn(store)];
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => handlers[i % 3]!.execute('s', { add: 1 }, { actor: 'a', correlationId: `c${i}` })),
    );
    expect(await handlers[0]!.read('s')).toBe(60);
  });

  describe('saved states (D292)', () => {
    const meta = { actor: 'a', correlationId: 'c' };

    it('when a saved state is taken back, then the stream is read only after it and commands decide on it', async () => {
      const store = new MemoryEventStore();
      const first = handlerOn(store);
      for (const add of [1, 2, 4]) await first.execute('s', { add }, meta);
      const [saved] = first.saved(0, (state) => state).streams;
      await first.execute('s', { add: 8 }, meta);

      const next = handlerOn(store);
      // 1000 instead of the 7 it folds to: only a state taken back, not a fold from the start, can answer it.
      next.resume({ ...(saved as { streamId: string; revision: number; eventId: string }), state: 1000 });
      expect(await next.read('s')).toBe(1008);
      expect((await next.execute('s', { add: 16 }, meta)).state).toBe(1024);
    });

    it('when the log no longer holds the saved event at its revision, then the stream is folded from its start', async () => {
      const store = new MemoryEventStore();
      const other = new MemoryEventStore();
      const first = handlerOn(other);
      for (const add of [1, 2]) await first.execute('s', { add }, meta);
      const [saved] = first.saved(0, (state) => state).streams;
      // The same stream and revisions in another log: the saved state is not this log's.
      const here = handlerOn(store);
      for (const add of [5, 5]) await here.execute('s', { add }, meta);

      const next = handlerOn(store);
      next.resume({ ...(saved as { streamId: string; revision: number; eventId: string }), state: 3 });
      expect((await next.execute('s', { add: 1 }, meta)).state).toBe(11);
    });

    it('when only some streams changed since a save, then only those are copied again', async () => {
      const store = new MemoryEventStore();
      const h = handlerOn(store);
      await h.execute('a', { add: 1 }, meta);
      await h.execute('b', { add: 1 }, meta);
      const { version } = h.saved(0, (state) => state);
      await h.execute('b', { add: 1 }, meta);
      await h.read('a');
      expect(h.saved(version, (state) => state).streams.map((s) => s.streamId)).toEqual(['b']);
    });
  });

  describe('its cache (D321)', () => {
    /** A store that counts the events its stream reads hand back: what a folded-again stream costs. */
    const counting = (): { store: MemoryEventStore; read: () => number } => {
      const store = new MemoryEventStore();
      let read = 0;
      const readStream = store.readStream.bind(store);
      store.readStream = async (...args: Parameters<MemoryEventStore['readStream']>) => {
        const events = await readStream(...args);
        read += events.length;
        return events;
      };
      return { store, read: () => read };
    };
    const meta = { actor: 'a', correlationId: 'c' };
    const weighed = (store: MemoryEventStore, maxCachedWeight: number) =>
      new CommandHandler(store, counter, {
        context: () => ({}),
        newEventId: () => `e${++ids}`,
        schemaVersion: 1,
        now: () => '2026-01-01T00:00:00.000Z',
        weigh: (s) => 1 + Math.floor(s / 100),
        maxCachedWeight,
      });

    it('when more streams than the old 1,000 are read in turn and their weight fits, then no stream is folded again', async () => {
      const { store, read } = counting();
      const handler = weighed(store, 5_000);
      for (let n = 0; n < 2_000; n++) await handler.execute(`s${n}`, { add: 1 }, meta);
      const before = read();
      for (let n = 0; n < 2_000; n++) expect(await handler.read(`s${n}`)).toBe(1);
      expect(read() - before).toBe(0);
    });

    it('when the states outweigh the budget, then the least recently used are folded again on their next read', async () => {
      const { store, read } = counting();
      const handler = weighed(store, 3);
      for (const s of ['a', 'b', 'c']) await handler.execute(s, { add: 150 }, meta);
      const before = read();
      expect(await handler.read('c')).toBe(150);
      expect(read() - before).toBe(0);
      expect(await handler.read('a')).toBe(150);
      expect(read() - before).toBe(1);
    });
  });
});
