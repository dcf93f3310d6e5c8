import { gatherWindowMs, MAX_GATHER_MS } from './gather';

describe('gatherWindowMs', () => {
  it('when the queue is small, then a pass waits about the configured gathering', () => {
    expect(gatherWindowMs(25, 0)).toBe(25);
    expect(gatherWindowMs(25, 20)).toBe(29);
  });

  it('when the queue holds thousands of entries, then a pass gathers longer, up to the cap', () => {
    expect(gatherWindowMs(25, 1000)).toBe(225);
    expect(gatherWindowMs(25, 1_000_000)).toBe(MAX_GATHER_MS);
  });
});
