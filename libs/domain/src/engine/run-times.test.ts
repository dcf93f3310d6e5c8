import { dueWindowMs, foldRunTimes, type RunTimes } from './run-times';

const fold = (ms: number[]): RunTimes | undefined => ms.reduce<RunTimes | undefined>(foldRunTimes, undefined);

describe('run times', () => {
  it('when runs take the same time, then the mean is that time and the window its minimum share', () => {
    const t = fold([600_000, 600_000, 600_000]);
    expect(t).toEqual({ meanMs: 600_000, deviationMs: 0, count: 3 });
    expect(dueWindowMs(t)).toBe(12_000);
  });

  it('when runs deviate a little, then the window is three deviations, capped at its maximum share', () => {
    const t = fold([100_000, 101_000, 100_000, 101_000]) as RunTimes;
    expect(dueWindowMs(t)).toBeCloseTo(Math.max(2_000, 3 * t.deviationMs), 6);
    expect(dueWindowMs({ meanMs: 100_000, deviationMs: 4_000, count: 9 })).toBe(5_000);
  });

  it('when runs deviate by more than the steady share, then no run is ever due', () => {
    expect(dueWindowMs(fold([300_000, 600_000, 900_000]))).toBeUndefined();
    expect(dueWindowMs({ meanMs: 100_000, deviationMs: 5_001, count: 9 })).toBeUndefined();
  });

  it('when CI slows down, then nothing is due while the times move and the mean follows within a few runs', () => {
    const steady = fold([60_000, 60_000, 60_000]);
    const moving = foldRunTimes(steady, 120_000);
    expect(dueWindowMs(moving)).toBeUndefined();
    const t = fold([60_000, 60_000, 60_000, 120_000, 120_000, 120_000, 120_000, 120_000, 120_000, 120_000]) as RunTimes;
    expect(t.meanMs).toBeGreaterThan(105_000);
  });
});
