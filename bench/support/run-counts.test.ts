import type { QueueEvent } from '@railyard/domain';
import { runsOf } from './run-counts';

const at = '2026-12-06T00:00:00.000Z';
const started = (testRunId: string, prNumbers: number[], dependentPrs: number[]): QueueEvent =>
  ({ type: 'TestRunStarted', data: { testRunId, prNumbers, dependentPrs, at } }) as unknown as QueueEvent;
const failed = (testRunId: string): QueueEvent =>
  ({
    type: 'TestRunFailed',
    data: { testRunId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['tests'], at },
  }) as unknown as QueueEvent;
const merged = (prNumber: number): QueueEvent => ({ type: 'PrMerged', data: { prNumber, at } }) as unknown as QueueEvent;

describe('runs counted from a run’s events', () => {
  it('when a run without a breaking PR fails, then it is a flake that cost a run; one stacking a break is not', () => {
    const events = [
      started('a', [2], [1]),
      started('b', [3], [1, 2]),
      failed('a'),
      failed('b'),
      started('c', [2], [1]),
      merged(1),
      merged(2),
    ];
    expect(runsOf(events, new Set([3]))).toEqual({ runsPerMerge: 1.5, costlyFlakes: 1 });
  });
});
