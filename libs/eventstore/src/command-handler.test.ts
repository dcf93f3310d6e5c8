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

describe('CommandHandler', () => {
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
});
