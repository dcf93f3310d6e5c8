import { batchedLinearBound, dorfmanRunsPerChange, effectiveFailureRate, linearSpeculationBound } from './bound';

describe('linearSpeculationBound', () => {
  it('when the depth is 1, then it is the serial queue: 60(1-p)/T merges an hour', () => {
    // p = 0.1, T = 30: 0.9 merges per 30 minutes, 1.8 an hour; 1 run per 0.9 merges.
    const b = linearSpeculationBound(0.1, 30, 1);
    expect(b.mergesPerHour).toBeCloseTo(1.8, 10);
    expect(b.ciRunsPerMerge).toBeCloseTo(1 / 0.9, 10);
  });

  it('when p = 10%, T = 30 and k = 8, then it matches the sum worked by hand', () => {
    // Merges per round = sum over j = 1..8 of 0.9^j = 0.9 (1 - 0.9^8) / 0.1 = 9 × 0.56953279 = 5.12579511.
    const b = linearSpeculationBound(0.1, 30, 8);
    expect(b.mergesPerRound).toBeCloseTo(5.12579511, 6);
    expect(b.resolvedPerRound).toBeCloseTo(5.6953279, 6);
    expect(b.mergesPerHour).toBeCloseTo(10.25159022, 6);
    expect(b.ciRunsPerMerge).toBeCloseTo(8 / 5.12579511, 6);
  });

  it('when p = 5%, T = 30 and k = 16, then it matches the sum worked by hand', () => {
    // 0.95 (1 - 0.95^16) / 0.05 = 19 × (1 - 0.44012667) = 10.63759331 merges per round.
    const b = linearSpeculationBound(0.05, 30, 16);
    expect(b.mergesPerHour).toBeCloseTo(21.27518662, 6);
    expect(b.ciRunsPerMerge).toBeCloseTo(16 / 10.63759331, 6);
  });

  it.each([
    [0.01, 1, 2.0, 1.01],
    [0.05, 4, 7.0, 1.13],
    [0.1, 8, 10.3, 1.56],
    [0.1, 16, 14.7, 2.18],
    [0.2, 8, 6.7, 2.4],
  ])('when p = %p and k = %p at T = 30, then it gives the published %p merges an hour and %p runs per merge', (p, k, perHour, runs) => {
    const b = linearSpeculationBound(p, 30, k);
    expect(b.mergesPerHour).toBeCloseTo(perHour, 1);
    expect(b.ciRunsPerMerge).toBeCloseTo(runs, 2);
  });

  it('when the depth grows without end, then it saturates at (1-p)/p merges per round', () => {
    expect(linearSpeculationBound(0.1, 30, 10_000).mergesPerRound).toBeCloseTo(9, 6);
  });

  it('when p is 0, then every one of the k runs merges', () => {
    const b = linearSpeculationBound(0, 30, 8);
    expect(b.mergesPerHour).toBe(16);
    expect(b.ciRunsPerMerge).toBe(1);
  });

  it('when an input is out of range, then it is refused', () => {
    expect(() => linearSpeculationBound(1, 30, 8)).toThrow(RangeError);
    expect(() => linearSpeculationBound(0.1, 0, 8)).toThrow(RangeError);
    expect(() => linearSpeculationBound(0.1, 30, 0)).toThrow(RangeError);
    expect(() => linearSpeculationBound(0.1, 30, 2.5)).toThrow(RangeError);
  });
});

describe('dorfmanRunsPerChange and batchedLinearBound', () => {
  it('when b = 4 and p = 5%, then runs per change are 1/4 + 1 - 0.95^4', () => {
    // 0.95^4 = 0.81450625, so 0.25 + 0.18549375.
    expect(dorfmanRunsPerChange(0.05, 4)).toBeCloseTo(0.43549375, 8);
  });

  it('when b = 1, then every change runs once', () => {
    expect(dorfmanRunsPerChange(0.3, 1)).toBe(1);
  });

  it('when batches of one are speculated, then it equals the plain linear bound', () => {
    expect(batchedLinearBound(0.1, 30, 8, 1).mergesPerHour).toBeCloseTo(linearSpeculationBound(0.1, 30, 8).mergesPerHour, 10);
  });

  it('when p = 5%, b = 4 and k = 4, then a batch fails with 1 - 0.95^4 and four PRs merge per passing batch', () => {
    const pb = 1 - 0.95 ** 4;
    const batchesPerRound = ((1 - pb) * (1 - (1 - pb) ** 4)) / pb;
    expect(batchedLinearBound(0.05, 30, 4, 4).mergesPerHour).toBeCloseTo(batchesPerRound * 4 * 2, 10);
  });
});

describe('effectiveFailureRate', () => {
  it('when a PR breaks with 5% and a run flakes with 10%, then a run fails with 14.5%', () => {
    expect(effectiveFailureRate({ failureRate: 0.05, flakeRate: 0.1 })).toBeCloseTo(0.145, 10);
  });
});
