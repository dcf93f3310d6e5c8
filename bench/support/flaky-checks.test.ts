import { costlyFlakes, type FlakeDraws } from './flaky-checks';

const draws = (flaked: string[]): FlakeDraws => ({ attempts: new Map(), flaked: flaked.length, flakedRuns: new Set(flaked) });

describe('flakes that cost a run (the flaky shape’s floor)', () => {
  it('when a flaked run failed and held no breaking PR, then it costs one run', () => {
    const runs = [{ testRunId: 'a', prs: [3, 1, 2], failed: true }];
    expect(costlyFlakes(draws(['a']), runs, new Set([6]))).toBe(1);
  });

  it('when a flaked run was cancelled before its verdict, then it costs nothing', () => {
    const runs = [{ testRunId: 'a', prs: [3], failed: false }];
    expect(costlyFlakes(draws(['a']), runs, new Set())).toBe(0);
  });

  it('when a flaked run tested or stacked a breaking PR, then it would have failed anyway', () => {
    const runs = [
      { testRunId: 'a', prs: [6], failed: true },
      { testRunId: 'b', prs: [7, 6], failed: true },
    ];
    expect(costlyFlakes(draws(['a', 'b']), runs, new Set([6]))).toBe(0);
  });

  it('when a run failed without a flake drawn, then it is no flake', () => {
    const runs = [{ testRunId: 'a', prs: [3], failed: true }];
    expect(costlyFlakes(draws([]), runs, new Set())).toBe(0);
  });
});
