import { MemoryEventStore } from '../../libs/eventstore/src';
import { eventStoreContract, newEvent } from './eventstore.contract';
import { streamRetentionContract } from './stream-retention.contract';

eventStoreContract('memory', async () => ({ store: new MemoryEventStore(), cleanup: async () => undefined }));

describe('memory event store', () => {
  it('when the first events are appended, then global positions start at 1 and increase by one', async () => {
    const store = new MemoryEventStore();
    await store.append('a', [newEvent('A'), newEvent('A')], 'no_stream');
    await store.append('b', [newEvent('B')], 'no_stream');

    expect((await store.readAll(null, 10)).map((e) => e.position)).toEqual([1n, 2n, 3n]);
    await store.close();
  });

  it('when a clock is injected, then recordedAt comes from it', async () => {
    const store = new MemoryEventStore({ now: () => new Date('2030-05-06T07:08:09.000Z') });
    await store.append('a', [newEvent('A')], 'no_stream');

    expect((await store.readStream('a'))[0]?.recordedAt).toBe('2030-05-06T07:08:09.000Z');
    await store.close();
  });

  it('when a caller mutates what it appended or read, then the stored events do not change', async () => {
    const store = new MemoryEventStore();
    const data = { list: [1] };
    await store.append('a', [newEvent('A', data)], 'no_stream');
    data.list.push(2);
    const [read] = await store.readStream('a');
    (read?.data as { list: number[] }).list.push(3);

    expect((await store.readStream('a'))[0]?.data).toEqual({ list: [1] });
    await store.close();
  });
});

streamRetentionContract('memory', async (clock) => ({ store: new MemoryEventStore({ now: clock.now }), cleanup: async () => undefined }));
