import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WrongExpectedRevisionError, type NewEvent } from '../port';
import { SqliteEventStore } from './sqlite-event-store';

const event = (n: number): NewEvent => ({
  eventId: randomUUID(),
  type: 'Numbered',
  data: { n },
  metadata: { schemaVersion: 1, actor: 'test', correlationId: randomUUID(), at: '2025-01-01T00:00:00.000Z' },
});

describe('SQLite event store group commit', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'railyard-group-commit-'));
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('when appends to several streams arrive in one turn and one of them is refused, then the others are written and each gets its own answer', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.sqlite') });

    const [a, b, conflict, c] = await Promise.allSettled([
      store.append('s-a', [event(1), event(2)], 'no_stream'),
      store.append('s-b', [event(3)], 'no_stream'),
      store.append('s-a', [event(4)], 'no_stream'),
      store.append('s-c', [event(5)], 'any'),
    ]);

    expect(a).toEqual({ status: 'fulfilled', value: { nextRevision: 1, position: 2n } });
    expect(b).toEqual({ status: 'fulfilled', value: { nextRevision: 0, position: 3n } });
    expect(conflict.status === 'rejected' && conflict.reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(c).toEqual({ status: 'fulfilled', value: { nextRevision: 0, position: 4n } });
    expect((await store.readStream('s-a')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await store.headPosition()).toBe(4n);
    await store.close();
  });

  it('when the store is closed right after an append was made, then that append is committed rather than dropped', async () => {
    const file = join(dir, 'events.sqlite');
    const store = new SqliteEventStore({ file });

    const appended = store.append('s-a', [event(1)], 'no_stream');
    await store.close();

    await expect(appended).resolves.toEqual({ nextRevision: 0, position: 1n });
    const reopened = new SqliteEventStore({ file });
    expect((await reopened.readStream('s-a')).map((e) => e.data)).toEqual([{ n: 1 }]);
    await reopened.close();
  });
});
