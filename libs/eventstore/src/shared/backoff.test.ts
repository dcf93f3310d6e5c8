import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  const backoff = { minMs: 100, maxMs: 1_000 };

  it('when failures repeat, then the delay doubles from minMs up to maxMs', () => {
    expect([1, 2, 3, 4, 5, 50].map((n) => backoffDelay(n, backoff, () => 0))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('when the jitter draws its highest value, then the delay is twice the step, still capped', () => {
    expect(backoffDelay(2, backoff, () => 1)).toBe(400);
    expect(backoffDelay(4, backoff, () => 1)).toBe(1_000);
  });

  it('when it is asked before any failure, then it answers the first delay', () => {
    expect(backoffDelay(0, backoff, () => 0)).toBe(100);
  });
});
