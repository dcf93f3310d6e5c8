import type { RecordedEvent } from '../port';
import { ReadAhead } from './read-ahead';

const event = (position: number): RecordedEvent => ({
  streamId: 's',
  revision: position - 1,
  position: BigInt(position),
  eventId: `e${position}`,
  type: 'T',
  data: {},
  metadata: { schemaVersion: 1, actor: 'test', correlationId: 'c', at: '2030-01-01T00:00:00.000Z' },
  recordedAt: '2030-01-01T00:00:00.000Z',
});

/** A log of `head` events whose reads are recorded; `grow` appends more. */
function log(head: number) {
  let size = head;
  const reads: string[] = [];
  const read = async (after: bigint, max: number): Promise<RecordedEvent[]> => {
    reads.push(`${after}+${max}`);
    return Array.from({ length: Math.max(0, Math.min(max, size - Number(after))) }, (_, i) => event(Number(after) + i + 1));
  };
  return { read, reads, grow: (n: number) => (size += n) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadAhead', () => {
  it('given a full page was read, when the next page is asked for, then it is the one already fetched', async () => {
    const store = log(10);
    const ahead = new ReadAhead(store.read);

    await ahead.page(0n, 4);
    await settle();
    expect(store.reads).toEqual(['0+4', '4+4']);
    const second = await ahead.page(4n, 4);

    expect(second.map((e) => e.position)).toEqual([5n, 6n, 7n, 8n]);
    expect(store.reads).toEqual(['0+4', '4+4', '8+4']);
  });

  it('given the page fetched ahead was short, when it is asked for, then it is read again and sees what was appended since', async () => {
    const store = log(6);
    const ahead = new ReadAhead(store.read);
    await ahead.page(0n, 4);
    await settle();
    store.grow(3);

    const next = await ahead.page(4n, 4);

    expect(next.map((e) => e.position)).toEqual([5n, 6n, 7n, 8n]);
    expect(store.reads.filter((r) => r === '4+4')).toHaveLength(2);
  });

  it('given a short page, when it is read, then nothing is fetched ahead', async () => {
    const store = log(3);
    const ahead = new ReadAhead(store.read);

    await ahead.page(0n, 4);
    await settle();

    expect(store.reads).toEqual(['0+4']);
  });

  it('given the read ahead failed, when its page is asked for, then the reader reads it itself', async () => {
    const store = log(8);
    let failures = 0;
    const ahead = new ReadAhead(async (after, max) => {
      if (after === 4n && failures === 0) {
        failures += 1;
        throw new Error('connection lost');
      }
      return store.read(after, max);
    });
    await ahead.page(0n, 4);
    await settle();

    await expect(ahead.page(4n, 4)).resolves.toHaveLength(4);
    expect(failures).toBe(1);
  });
});

describe('ReadAhead shared reads', () => {
  it('when readers ask for the same page before any further append, then one read answers them all', async () => {
    const store = log(3);
    const ahead = new ReadAhead(store.read, () => 7);

    const pages = await Promise.all([ahead.page(0n, 4), ahead.page(0n, 4), ahead.page(0n, 4)]);

    expect(pages.map((p) => p.length)).toEqual([3, 3, 3]);
    expect(store.reads).toEqual(['0+4']);
  });

  it('when an append was signalled after a read started, then a reader asking now reads again', async () => {
    const store = log(3);
    let generation = 1;
    const ahead = new ReadAhead(store.read, () => generation);

    const first = ahead.page(0n, 4);
    store.grow(1);
    generation += 1;
    const second = ahead.page(0n, 4);

    expect((await first).length).toBe(3);
    expect((await second).length).toBe(4);
    expect(store.reads.filter((r) => r === '0+4')).toHaveLength(2);
  });

  it('when a read has finished, then the next reader of the same page reads again', async () => {
    const store = log(3);
    const ahead = new ReadAhead(store.read, () => 1);

    await ahead.page(0n, 4);
    store.grow(1);

    expect(await ahead.page(0n, 4)).toHaveLength(4);
    expect(store.reads.filter((r) => r === '0+4')).toHaveLength(2);
  });
});

describe('ReadAhead committed tail', () => {
  it('given this process just committed rows after a position, when a reader at that position asks, then it gets them without a read', async () => {
    const store = log(5);
    const ahead = new ReadAhead(store.read, () => 1);
    ahead.offer(3n, [event(4), event(5)]);

    expect((await ahead.page(3n, 10)).map((e) => e.position)).toEqual([4n, 5n]);
    expect((await ahead.page(3n, 1)).map((e) => e.position)).toEqual([4n]);
    expect(store.reads).toEqual([]);
  });

  it('when anything was signalled after the commit, or the reader is elsewhere, then it reads the log', async () => {
    const store = log(6);
    let generation = 1;
    const ahead = new ReadAhead(store.read, () => generation);
    ahead.offer(3n, [event(4), event(5)]);

    expect(await ahead.page(2n, 10)).toHaveLength(4);
    generation += 1;
    expect(await ahead.page(3n, 10)).toHaveLength(3);
    expect(store.reads).toEqual(['2+10', '3+10']);
  });
});
