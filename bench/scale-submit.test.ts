import { quantile, submitShapesFromEnv } from './scale-submit';

describe('quantile of the submit curve', () => {
  it('when asked for the median of an odd count, then it is the middle value', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
  });

  it('when asked for the median of an even count, then it is the lower middle value (nearest rank)', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
  });

  it('when asked for the 99th percentile of 300 values, then it is the 297th', () => {
    const values = Array.from({ length: 300 }, (_, i) => i + 1);
    expect(quantile(values, 0.99)).toBe(297);
  });

  it('when there are no values, then it is NaN', () => {
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('shapes of the submit curve', () => {
  it('when nothing is set, then both shapes run, embedded first', () => {
    expect(submitShapesFromEnv({})).toEqual(['embedded', 'distributed']);
  });

  it('when one shape is named, then only it runs', () => {
    expect(submitShapesFromEnv({ BENCH_SUBMIT_SHAPES: 'distributed' })).toEqual(['distributed']);
  });

  it('when an unknown shape is named, then the run is refused', () => {
    expect(() => submitShapesFromEnv({ BENCH_SUBMIT_SHAPES: 'embedded,redis' })).toThrow(/not "redis"/);
  });
});
