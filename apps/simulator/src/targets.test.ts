import type { SimResult } from './result';
import { evaluateTargets } from './targets';

const result = (workload: string, o: Partial<SimResult>): SimResult =>
  ({ workload, prs: 1000, mergesPerHour: 10, fractionOfBound: 1, ciRunsPerMerge: 1, innocentEjections: 0, ...o }) as SimResult;

describe('evaluateTargets', () => {
  it('when every workload meets its target, then every check is met', () => {
    const checks = evaluateTargets([
      result('single-p10-c08', { fractionOfBound: 0.97, mergesPerHour: 10 }),
      result('batch4-p05', { ciRunsPerMerge: 0.55 }),
      result('parallel-a16', { mergesPerHour: 120 }),
      result('parallel-a16-x10', { mergesPerHour: 101 }),
      result('flaky-antiflake-on', { innocentEjections: 9, prs: 1000 }),
    ]);
    expect(checks.map((c) => c.met)).toEqual([true, true, true, true, true]);
    expect(checks[2]?.value).toBe(12);
  });

  it('when a workload misses, then its check says so with the value measured', () => {
    const checks = evaluateTargets([
      result('single-p10-c08', { fractionOfBound: 0.9 }),
      result('flaky-antiflake-on', { innocentEjections: 20, prs: 1000 }),
    ]);
    expect(checks[0]).toMatchObject({ met: false, value: 0.9 });
    expect(checks[4]).toMatchObject({ met: false, value: 0.02 });
  });

  it('when a workload was not run, then its check is left open', () => {
    expect(evaluateTargets([]).every((c) => c.met === null && c.value === null)).toBe(true);
  });
});
