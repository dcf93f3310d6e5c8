import fc from 'fast-check';
import { OverlapIndex } from './overlaps';

const sorted = (set: ReadonlySet<string> | undefined): string[] | undefined => (set ? [...set].sort() : undefined);

describe('OverlapIndex', () => {
  it('when lists share a target, then each names the other; lists sharing none name nothing', () => {
    const index = new OverlapIndex();
    index.add('a', ['x', 'y']);
    index.add('b', ['y', 'z']);
    index.add('c', ['q']);
    expect(sorted(index.neighbours('a'))).toEqual(['b']);
    expect(sorted(index.neighbours('b'))).toEqual(['a']);
    expect(sorted(index.neighbours('c'))).toEqual([]);
  });

  it('when a list is unknown, then its neighbours are unknown (the planner treats it as ALL)', () => {
    expect(new OverlapIndex().neighbours('nope')).toBeUndefined();
  });

  it('when a list is removed, then nobody names it any more and its targets are forgotten', () => {
    const index = new OverlapIndex();
    index.add('a', ['x']);
    index.add('b', ['x']);
    index.remove('a');
    expect(sorted(index.neighbours('b'))).toEqual([]);
    expect(index.has('a')).toBe(false);
    index.add('c', ['x']);
    expect(sorted(index.neighbours('c'))).toEqual(['b']);
  });

  it('when the same digest is added twice or a list repeats a name, then nothing is counted twice', () => {
    const index = new OverlapIndex();
    index.add('a', ['x', 'x']);
    index.add('a', ['other']);
    index.add('b', ['x']);
    expect(sorted(index.neighbours('a'))).toEqual(['b']);
    expect(index.size).toBe(2);
  });

  it('when lists come and go in any order, then the neighbours are exactly the lists sharing a target', () => {
    const names = fc.array(fc.constantFrom('t1', 't2', 't3', 't4', 't5', 't6'), { maxLength: 4 });
    const op = fc.oneof(fc.record({ add: fc.integer({ min: 0, max: 5 }), names }), fc.record({ remove: fc.integer({ min: 0, max: 5 }) }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const index = new OverlapIndex();
        const live = new Map<string, Set<string>>();
        for (const o of ops) {
          if ('add' in o) {
            const d = `d${o.add}`;
            if (!live.has(d)) live.set(d, new Set(o.names));
            index.add(d, o.names);
          } else {
            live.delete(`d${o.remove}`);
            index.remove(`d${o.remove}`);
          }
        }
        for (const [d, mine] of live) {
          const expected = [...live].filter(([o, theirs]) => o !== d && [...theirs].some((t) => mine.has(t))).map(([o]) => o);
          expect(sorted(index.neighbours(d))).toEqual(expected.sort());
        }
      }),
    );
  });

  it('when thousands of names come and go, then the table grows and shrinks without losing a holder', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const index = new OverlapIndex();
    const live = new Map<string, Set<string>>();
    for (let round = 0; round < 600; round++) {
      const d = `d${rand(150)}`;
      if (live.has(d) && rand(2) === 0) {
        live.delete(d);
        index.remove(d);
        continue;
      }
      const names = Array.from({ length: 40 }, () => `n${rand(3000)}`);
      if (!live.has(d)) live.set(d, new Set(names));
      index.add(d, names);
    }
    for (const [d, mine] of live) {
      const expected = [...live].filter(([o, theirs]) => o !== d && [...theirs].some((t) => mine.has(t))).map(([o]) => o);
      expect(sorted(index.neighbours(d))).toEqual(expected.sort());
    }
  });
});
