import path from 'node:path';
import { EventIdConflictError, SqliteEventStore, WrongExpectedRevisionError, type EventStore, type NewEvent } from '@railyard/eventstore';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { answerOf, appendHere, withAppendsElsewhere, type AppendRequest } from './appends';

/** Appends made on another thread's store answer as the store itself would (docs/decisions.md D46). */

let dir: string;
let server: EventStore;
let thread: EventStore;
let sent: AppendRequest[];

const event = (eventId: string): NewEvent => ({
  eventId,
  type: 'Noted',
  data: { eventId },
  metadata: { schemaVersion: 1, actor: 'engine', correlationId: 'c', at: '2026-11-29T12:00:00.000Z' },
});

beforeEach(async () => {
  dir = await makeTempDir('railyard-appends-');
  const file = path.join(dir, 'events.sqlite');
  server = new SqliteEventStore({ file });
  sent = [];
  // What crossing a thread does to the request and the answer: a structured clone each way.
  thread = withAppendsElsewhere(new SqliteEventStore({ file }), async (request) => {
    sent.push(request);
    return structuredClone(await appendHere(server, structuredClone(request)));
  });
});
afterEach(async () => {
  await thread.close();
  await server.close();
  await removeTempDir(dir);
});

describe('appends made on the server thread’s store', () => {
  it('when the engine thread appends, then the server’s store writes it and the thread reads it back on its own connection', async () => {
    const result = await thread.append('queue-a', [event('e1'), event('e2')], 'no_stream');
    expect(result).toEqual({ nextRevision: 1, position: expect.any(BigInt) });
    expect(sent).toHaveLength(1);
    expect((await thread.readStream('queue-a')).map((e) => e.eventId)).toEqual(['e1', 'e2']);
    expect((await server.readStream('queue-a')).map((e) => e.eventId)).toEqual(['e1', 'e2']);
  });

  it('when the stream moved on, then the thread gets the store’s own WrongExpectedRevisionError', async () => {
    await server.append('queue-a', [event('e1')], 'no_stream');
    const err = await thread.append('queue-a', [event('e2')], 'no_stream').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WrongExpectedRevisionError);
    expect(err).toMatchObject({ streamId: 'queue-a', expected: 'no_stream', actual: 0 });
  });

  it('when event ids were used elsewhere, then the thread gets EventIdConflictError naming them', async () => {
    await server.append('queue-a', [event('e1')], 'no_stream');
    const err = await thread.append('queue-b', [event('e1')], 'no_stream').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EventIdConflictError);
    expect(err).toMatchObject({ streamId: 'queue-b', conflictingIds: ['e1'] });
  });

  it('when the append failed otherwise, then the thread gets an error with the same message', () => {
    expect(() => answerOf({ failed: 'the store is closed' })).toThrow('the store is closed');
  });
});
