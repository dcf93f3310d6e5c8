import { EntryMap, placeIn, planOrderIndexOf } from './entry-order';
import type { PrState } from './events';
import type { Entry } from './state';

// Only the fields the plan order reads; the rest of an entry plays no part in it.
const entry = (prNumber: number, state: PrState, priorityValue: number, seq: number, flightSeq?: number): Entry =>
  ({ prNumber, state, priorityValue, seq, ...(flightSeq !== undefined ? { flightSeq } : {}) }) as Entry;

const numbers = (entries: readonly Entry[]): number[] => entries.map((e) => e.prNumber);

/** The order as the planner sorted it before the index: filter and sort a plain copy of the entries. */
const sortedCopy = (m: EntryMap) => planOrderIndexOf(new Map(m));

/** A small deterministic generator, so a failing sequence can be replayed. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const STATES: PrState[] = [
  'pending',
  'pending',
  'not_ready',
  'testing',
  'tests_passed',
  'pending_failure',
  'merged',
  'failed',
  'cancelled',
];

describe('the plan order kept by the entries', () => {
  it('when entries are submitted with priorities, then the waiting ones are in priority, then submission order', () => {
    const m = new EntryMap();
    m.set(1, entry(1, 'pending', 100, 0));
    m.set(2, entry(2, 'pending', 50, 1));
    m.set(3, entry(3, 'pending', 100, 2));
    m.set(4, entry(4, 'pending', 0, 3));
    expect(numbers(m.waiting)).toEqual([4, 2, 1, 3]);
    expect(numbers(m.started)).toEqual([]);
  });

  it('when a waiting entry starts, then it leaves the waiting ones and keeps its flight place ahead of them', () => {
    const m = new EntryMap();
    m.set(1, entry(1, 'pending', 100, 0));
    m.set(2, entry(2, 'pending', 100, 1));
    m.set(3, entry(3, 'pending', 0, 2));
    m.set(2, entry(2, 'testing', 100, 1, 0));
    m.set(1, entry(1, 'testing', 100, 0, 1));
    expect(numbers(m.started)).toEqual([2, 1]);
    expect(numbers(m.waiting)).toEqual([3]);
    expect([1, 2, 3].map((n) => placeIn(m, m.get(n) as Entry))).toEqual([1, 0, 2]);
  });

  it('when an entry is not ready, ends or is deleted, then it takes no place', () => {
    const m = new EntryMap();
    m.set(1, entry(1, 'not_ready', 100, 0));
    m.set(2, entry(2, 'pending', 100, 1));
    m.set(3, entry(3, 'pending', 100, 2));
    m.set(2, entry(2, 'cancelled', 100, 1));
    m.delete(3);
    expect(numbers(m.waiting)).toEqual([]);
    expect(placeIn(m, m.get(1) as Entry)).toBeUndefined();
    m.set(1, entry(1, 'pending', 100, 0));
    expect(numbers(m.waiting)).toEqual([1]);
  });

  it.each([1, 2, 3, 4, 5])('when entries change at random (seed %i), then the kept order always equals sorting a copy', (seed) => {
    const next = random(seed);
    const m = new EntryMap();
    let seq = 0;
    let flight = 0;
    for (let step = 0; step < 2_000; step++) {
      const n = 1 + Math.floor(next() * 60);
      const old = m.get(n);
      const roll = next();
      if (roll < 0.1) m.delete(n);
      else if (roll < 0.2 || !old) m.set(n, entry(n, 'pending', [0, 50, 100, 200][Math.floor(next() * 4)] as number, seq++));
      else {
        const state = STATES[Math.floor(next() * STATES.length)] as PrState;
        // Starting takes the next flight place; a pre-empted entry gives its place up; others keep it.
        const flightSeq = state === 'testing' && old.flightSeq === undefined ? flight++ : next() < 0.1 ? undefined : old.flightSeq;
        m.set(n, entry(n, state, next() < 0.2 ? 25 : old.priorityValue, old.seq, flightSeq));
      }
      const expected = sortedCopy(m);
      expect(numbers(m.started)).toEqual(numbers(expected.started));
      expect(numbers(m.waiting)).toEqual(numbers(expected.waiting));
    }
    const order = [...m.started, ...m.waiting];
    for (const e of m.values()) expect(placeIn(m, e)).toBe(order.includes(e) ? order.indexOf(e) : undefined);
  });

  it('when the map is cleared, then the order is empty', () => {
    const m = new EntryMap();
    m.set(1, entry(1, 'pending', 100, 0));
    m.set(2, entry(2, 'testing', 100, 1, 0));
    m.clear();
    expect([m.started.length, m.waiting.length]).toEqual([0, 0]);
  });
});
