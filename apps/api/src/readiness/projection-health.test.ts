import { MemoryEventStore } from '@railyard/eventstore';
import { MemoryReadModelStore } from '@railyard/readmodels';
import { ProjectionHealth } from './projection-health';

const setup = async (readCacheMs: number, writeCacheMs?: number) => {
  const eventStore = new MemoryEventStore();
  // One event the read models never apply: behind.
  await eventStore.append(
    'queue-x',
    [{ eventId: 'e1', type: 'Noted', data: {}, metadata: { schemaVersion: 1, actor: 't', correlationId: 'c', at: '' } }],
    'any',
  );
  const state = { holder: 'p1' as string | null, calls: 0, fail: false };
  const health = new ProjectionHealth({
    eventStore,
    readModels: new MemoryReadModelStore(),
    presence: {
      holder: async () => {
        state.calls += 1;
        if (state.fail) throw new Error('redis is down');
        return state.holder;
      },
    },
    maxLagMs: 60_000,
    readCacheMs,
    ...(writeCacheMs !== undefined ? { writeCacheMs } : {}),
  });
  return { health, state };
};

describe('ProjectionHealth read cache', () => {
  it('when reads come within the cache time, then they share one check, while writes make a check of their own', async () => {
    const { health, state } = await setup(60_000);
    expect(await Promise.all([health.readFromStore(), health.readFromStore()])).toEqual([false, false]);
    state.holder = null;
    expect(await health.readFromStore()).toBe(false);
    expect(state.calls).toBe(1);
    await expect(health.assertWritable()).rejects.toMatchObject({ status: 503, code: 'PROJECTOR_UNAVAILABLE' });
  });

  it('when the cache time is 0, then every read checks; and a failed check is not kept', async () => {
    const { health, state } = await setup(0);
    state.holder = null;
    expect(await health.readFromStore()).toBe(true);
    const cached = await setup(60_000);
    cached.state.fail = true;
    await expect(cached.health.readFromStore()).rejects.toThrow('redis is down');
    cached.state.fail = false;
    expect(await cached.health.readFromStore()).toBe(false);
    expect(cached.state.calls).toBe(2);
  });

  it('when writes come within the write cache time, then they share one check; past it, a write sees the projector gone', async () => {
    const { health, state } = await setup(0, 60_000);
    await Promise.all([health.assertWritable(), health.assertWritable()]);
    state.holder = null;
    await health.assertWritable();
    expect(state.calls).toBe(1);

    const fresh = await setup(0, 0);
    await fresh.health.assertWritable();
    fresh.state.holder = null;
    await expect(fresh.health.assertWritable()).rejects.toMatchObject({ status: 503, code: 'PROJECTOR_UNAVAILABLE' });
    expect(fresh.state.calls).toBe(2);
  });
});
