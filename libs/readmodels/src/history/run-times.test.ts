import type { HistoryEntry } from './entry';
import { estimateSecondsToMerge, runTimeBasis, runTimesOf } from './run-times';

const T = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();
let revision = 0;
const entry = (type: string, minute: number, data: Record<string, unknown>): HistoryEntry => ({
  position: String(revision),
  revision: revision++,
  eventId: `e${revision}`,
  time: T(minute),
  recordedAt: T(minute),
  type,
  actor: 'engine',
  reason: null,
  correlationId: 'c',
  data,
});

const history = (): HistoryEntry[] => [
  entry('TestRunStarted', 0, { testRunId: 'a', prNumbers: [1] }),
  entry('TestRunSucceeded', 4, { testRunId: 'a' }),
  entry('TestRunStarted', 5, { testRunId: 'b', prNumbers: [2, 3] }),
  entry('TestRunFailed', 11, { testRunId: 'b' }),
  entry('TestRunStarted', 12, { testRunId: 'c', prNumbers: [4] }),
  entry('TestRunCancelled', 13, { testRunId: 'c' }),
  // A second end of the same run changes nothing.
  entry('TestRunTimedOut', 50, { testRunId: 'c' }),
  entry('TestRunStarted', 20, { testRunId: 'd', prNumbers: [5] }),
];

describe('run times from a queue history', () => {
  it('when runs start and end, then each has its PRs, start, first end and outcome', () => {
    expect(runTimesOf(history())).toEqual([
      { testRunId: 'a', prNumbers: [1], startedAt: T(0), endedAt: T(4), outcome: 'succeeded' },
      { testRunId: 'b', prNumbers: [2, 3], startedAt: T(5), endedAt: T(11), outcome: 'failed' },
      { testRunId: 'c', prNumbers: [4], startedAt: T(12), endedAt: T(13), outcome: 'cancelled' },
      { testRunId: 'd', prNumbers: [5], startedAt: T(20) },
    ]);
  });

  it('when runs passed, failed and were cancelled, then the basis is the median of the passed and failed ones', () => {
    expect(runTimeBasis(runTimesOf(history()))).toEqual({ medianSeconds: 300, runs: 2 });
  });

  it('when no run finished, then there is no basis and no estimate', () => {
    expect(runTimeBasis(runTimesOf(history().slice(0, 1)))).toBeUndefined();
    expect(estimateSecondsToMerge([{ state: 'pending' }], 1, undefined, Date.parse(T(0)))).toEqual([undefined]);
  });

  it('when one PR tests and three wait with two lanes, then each waits out the rounds ahead of it', () => {
    const basis = { medianSeconds: 600, runs: 5 };
    const now = Date.parse(T(4));
    const prs = [{ state: 'testing', testingSince: T(0) }, { state: 'pending' }, { state: 'pending' }, { state: 'pending' }];
    // The testing PR has 6 of its 10 minutes left; the round in flight is 4 minutes along.
    expect(estimateSecondsToMerge(prs, 2, basis, now)).toEqual([360, 360, 960, 960]);
  });
});
