import { parseShape } from './calibrate';

describe('bench calibrate shapes', () => {
  it('when a shape names N, C, T and a breaking share, then it has no flakes', () => {
    expect(parseShape('40,4,3,0.1')).toEqual({ count: 40, concurrency: 4, checkSeconds: 3, breakingFraction: 0.1 });
  });

  it('when a shape adds a flaky share and a seed, then both sides draw those flakes', () => {
    expect(parseShape('40,4,3,0.1,0.1,3').flaky).toEqual({ fraction: 0.1, seed: 3 });
  });

  it('when a shape has five fields, a share over 1 or a fractional seed, then it is refused', () => {
    for (const bad of ['40,4,3,0.1,0.1', '40,4,3,0.1,2,3', '40,4,3,0.1,0.1,1.5', '40,x,3,0.1'])
      expect(() => parseShape(bad)).toThrow(/a shape is N,C,T,fraction/);
  });
});
