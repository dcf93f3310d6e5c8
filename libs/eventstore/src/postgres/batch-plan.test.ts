import { WrongExpectedRevisionError, type ExpectedRevision, type NewEvent } from '../port';
import type { PendingAppend } from '../shared/pending-append';
import { assumedState, planBatch, type StoreState } from './batch-plan';

const event = (id: string): NewEvent => ({
  eventId: id,
  type: 'T',
  data: {},
  metadata: { schemaVersion: 1, actor: 'test', correlationId: 'c', at: '2030-01-01T00:00:00.000Z' },
});

const pending = (streamId: string, ids: string[], expected: ExpectedRevision): PendingAppend => ({
  streamId,
  events: ids.map(event),
  expected,
  payloads: ids.map(() => ['{}', '{}']),
  resolve: () => undefined,
  reject: () => undefined,
});

const now = () => new Date('2030-01-01T00:00:00.000Z');
const empty = (): StoreState => ({ found: new Map(), lastRevision: new Map() });

describe('assumedState', () => {
  it('given appends with concrete expectations, when assumed, then each stream is at what its first append expects and no id is known', () => {
    const state = assumedState([pending('a', ['1'], 4), pending('b', ['2'], 'no_stream'), pending('a', ['3'], 5)]);

    expect(state).toEqual({ found: new Map(), lastRevision: new Map([['a', 4]]) });
  });

  it('given an append that accepts any revision, when assumed, then there is nothing to assume', () => {
    expect(assumedState([pending('a', ['1'], 0), pending('b', ['2'], 'any')])).toBeNull();
  });
});

describe('planBatch', () => {
  it('given two appends to one stream, when planned, then both are written in order with offsets and the check is the stream before the batch', () => {
    const state = empty();
    state.lastRevision.set('a', 1);

    const plan = planBatch([pending('a', ['1', '2'], 1), pending('a', ['3'], 3)], state, now);

    expect(plan.rows.map((r) => [r.eventId, r.revision, r.offset])).toEqual([
      ['1', 2, 1n],
      ['2', 3, 2n],
      ['3', 4, 3n],
    ]);
    expect(plan.outcomes).toEqual([
      { result: { nextRevision: 3, position: 2n }, relative: true },
      { result: { nextRevision: 4, position: 3n }, relative: true },
    ]);
    expect(plan.checks).toEqual({ streams: ['a'], revisions: [1] });
  });

  it('given a stale expectation beside a good one, when planned, then only the stale one is refused and nothing of it is written', () => {
    const plan = planBatch(
      [pending('a', ['1'], 'no_stream'), pending('a', ['2'], 'no_stream'), pending('b', ['3'], 'no_stream')],
      empty(),
      now,
    );

    expect(plan.rows.map((r) => r.eventId)).toEqual(['1', '3']);
    const refused = plan.outcomes[1];
    expect(refused && 'error' in refused && refused.error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(plan.checks).toEqual({ streams: ['a', 'b'], revisions: [null, null] });
  });

  it('given a repeat of an append already stored, when planned, then its stored result comes back as an absolute position and nothing is written', () => {
    const state = empty();
    state.found.set('1', { streamId: 'a', revision: 0, position: 41n });
    state.lastRevision.set('a', 0);

    const plan = planBatch([pending('a', ['1'], 'no_stream')], state, now);

    expect(plan.rows).toEqual([]);
    expect(plan.outcomes).toEqual([{ result: { nextRevision: 0, position: 41n }, relative: false }]);
  });

  it('given an append repeated within the batch, when planned, then the repeat shares the first one’s relative result', () => {
    const plan = planBatch([pending('a', ['1'], 'no_stream'), pending('a', ['1'], 'no_stream')], empty(), now);

    expect(plan.rows).toHaveLength(1);
    expect(plan.outcomes[1]).toEqual({ result: { nextRevision: 0, position: 1n }, relative: true });
  });
});
