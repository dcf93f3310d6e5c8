import { Prng } from './prng';

const draw = (rng: Prng, n: number): number[] => Array.from({ length: n }, () => rng.next());

describe('Prng', () => {
  it('when two generators share a seed and stream, then they produce the same sequence', () => {
    expect(draw(new Prng(42, 'ci'), 1000)).toEqual(draw(new Prng(42, 'ci'), 1000));
  });

  it('when the seed or the stream differs, then the sequences differ', () => {
    const base = draw(new Prng(42, 'ci'), 20);
    expect(draw(new Prng(43, 'ci'), 20)).not.toEqual(base);
    expect(draw(new Prng(42, 'arrivals'), 20)).not.toEqual(base);
  });

  it('when drawing uniforms, then each lies in [0, 1) and their mean is near one half', () => {
    const xs = draw(new Prng(7), 100_000);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(xs.reduce((a, b) => a + b, 0) / xs.length).toBeCloseTo(0.5, 2);
  });

  it('when the probability is 0 or 1, then chance is never or always true', () => {
    const rng = new Prng(1);
    expect(Array.from({ length: 1000 }, () => rng.chance(0)).some(Boolean)).toBe(false);
    expect(Array.from({ length: 1000 }, () => rng.chance(1)).every(Boolean)).toBe(true);
  });

  it('when drawing exponentials, then their mean is the mean asked for', () => {
    const rng = new Prng(3);
    const xs = Array.from({ length: 100_000 }, () => rng.exponential(30));
    expect(xs.reduce((a, b) => a + b, 0) / xs.length).toBeCloseTo(30, 0);
  });

  it('when drawing lognormals, then their median is the median asked for', () => {
    const rng = new Prng(5);
    const xs = Array.from({ length: 100_001 }, () => rng.lognormal(30, 0.3)).sort((a, b) => a - b);
    expect(xs[50_000]).toBeCloseTo(30, 0);
  });

  it('when drawing integers below n, then every value in range appears and none outside', () => {
    const rng = new Prng(9);
    const seen = new Set(Array.from({ length: 10_000 }, () => rng.int(8)));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
