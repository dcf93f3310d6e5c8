import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  const options = { initialMs: 100, maxMs: 1_000 };

  it('when failures repeat, then the delay doubles up to the cap', () => {
    expect([0, 1, 2, 3, 4, 50].map((n) => backoffDelay(n, options, () => 1))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('when the jitter draws its lowest value, then the delay is half the step', () => {
    expect(backoffDelay(2, options, () => 0)).toBe(200);
  });
});
