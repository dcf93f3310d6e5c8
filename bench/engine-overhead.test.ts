import { breakingList, breakingPrs, idealRounds } from './engine';

describe('engine-overhead: the zero-overhead ideal', () => {
  it('when no PR breaks, then the rounds are the PRs over the concurrency, rounded up', () => {
    expect(idealRounds(40, 4, new Set())).toBe(10);
    expect(idealRounds(41, 4, new Set())).toBe(11);
  });

  it('when a PR breaks mid-round, then the PRs behind it in that round are tested again in the next', () => {
    // [1-4] [5,6✗,7,8] [7-10]: 6 fails, 7 and 8 stacked it.
    expect(idealRounds(10, 4, new Set([6]))).toBe(3);
    // The last of a round breaking wastes nothing.
    expect(idealRounds(8, 4, new Set([4]))).toBe(2);
  });

  it('when 10% of 40 PRs break, then they are 6, 16, 26 and 36, and the ideal is 12 rounds', () => {
    const bad = breakingPrs(40, 0.1);
    expect([...bad]).toEqual([6, 16, 26, 36]);
    expect(idealRounds(40, 4, bad)).toBe(12);
  });
});

describe('where the breaks fall (BENCH_ENGINE_OVERHEAD_BREAKING_AT)', () => {
  it('when a list is given, then it is the set of breaking PRs, sorted and without repeats', () => {
    expect(breakingList('7, 2,2', 40)).toEqual([2, 7]);
    expect(breakingList(undefined, 40)).toBeUndefined();
    expect(breakingList(' ', 40)).toBeUndefined();
  });

  it('when a number is not a PR of the bench, then it is refused', () => {
    expect(() => breakingList('0,41', 40)).toThrow('not 0, 41');
    expect(() => breakingList('x', 40)).toThrow('between 1 and 40');
  });

  it('when breaks sit next to each other, then the ideal pays a round for each', () => {
    expect(idealRounds(8, 4, new Set([1, 2]))).toBe(4);
  });
});
