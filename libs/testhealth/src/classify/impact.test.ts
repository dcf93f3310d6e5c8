import { failureRateLast24h, failureRateLast7d, failuresBetween, pullRequestsImpactedLast7d } from './impact';
import type { TestRun } from './types';

const NOW = new Date('2026-03-10T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 24 * 3_600_000).toISOString();
const prRun = (d: number, prNumber: number | undefined, outcome: TestRun['outcome'], upload?: TestRun['upload']): TestRun => ({
  at: daysAgo(d),
  commitSha: `c${prNumber ?? 'x'}${d}`,
  branch: prNumber === undefined ? 'main' : `pr-${prNumber}`,
  outcome,
  ...(prNumber === undefined ? {} : { prNumber }),
  ...(upload ? { upload } : {}),
});

describe('pullRequestsImpactedLast7d', () => {
  it('when pull requests failed or flaked this week, then each is counted once', () => {
    // given
    const history = [
      prRun(1, 1, 'failed'),
      prRun(2, 1, 'failed'),
      prRun(3, 2, 'flaky'),
      prRun(1, 3, 'passed'),
      prRun(1, undefined, 'failed'),
    ];
    // when
    const count = pullRequestsImpactedLast7d(history, NOW);
    // then
    expect(count).toBe(2);
  });

  it('when a failure is exactly 7 days old or older, then it is outside the window', () => {
    // given
    const history = [prRun(7, 1, 'failed'), prRun(8, 2, 'failed'), prRun(6.99, 3, 'failed')];
    // when
    const count = pullRequestsImpactedLast7d(history, NOW);
    // then
    expect(count).toBe(1);
  });

  it('when a failure came from an outage upload, then it is not counted', () => {
    // given
    const history = [prRun(1, 1, 'failed', { testCount: 50, failedCount: 45 }), prRun(1, 2, 'failed', { testCount: 50, failedCount: 2 })];
    // when
    const count = pullRequestsImpactedLast7d(history, NOW);
    // then
    expect(count).toBe(1);
  });
});

describe('failureRateLast7d', () => {
  it('when runs ended failed, passed, flaked or were skipped, then the rate is final failures over runs that ran', () => {
    // given
    const history = [prRun(1, 1, 'failed'), prRun(1, 2, 'passed'), prRun(1, 3, 'flaky'), prRun(1, 4, 'skipped'), prRun(9, 5, 'failed')];
    // when
    const rate = failureRateLast7d(history, NOW);
    // then
    expect(rate).toBeCloseTo(1 / 3);
  });

  it('when there are no runs, then the rate is 0', () => {
    expect(failureRateLast7d([], NOW)).toBe(0);
  });
});

describe('failureRateLast24h', () => {
  it('when runs of the last day and of the days before failed, then only the last day counts', () => {
    const history = [prRun(0.5, 1, 'failed'), prRun(0.25, 2, 'passed'), prRun(0.1, 3, 'passed'), prRun(2, 4, 'failed')];
    expect(failureRateLast24h(history, NOW)).toBeCloseTo(1 / 3);
    expect(failureRateLast7d(history, NOW)).toBeCloseTo(2 / 4);
  });
});

describe('failuresBetween', () => {
  it('when runs failed or flaked inside and outside a range, then those from its start up to (not including) its end count', () => {
    const from = new Date(daysAgo(3));
    const to = new Date(daysAgo(1));
    const history = [prRun(3, 1, 'failed'), prRun(2, 2, 'flaky'), prRun(2, 3, 'passed'), prRun(1, 4, 'failed'), prRun(4, 5, 'failed')];
    expect(failuresBetween(history, from, to)).toBe(2);
    expect(failuresBetween(history, to, NOW)).toBe(1);
  });
});
