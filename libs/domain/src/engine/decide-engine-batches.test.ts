import type { QueueEvent } from '../events';
import { foldQueue } from '../state';
import { NOW } from '../testing/decider-spec';
import { at, prSubmitted, queueConfigUpdated } from '../testing/fixtures';
import type { StartTestRun } from './commands';
import { batchFailed, batchPassed, batchStarted, merged, runStarted, statusReported } from './testing/engine-fixtures';
import { givenEngine } from './testing/engine-spec';
import { queueWith } from './testing/plan-helpers';

const start = (testRunId: string, prNumbers: number[], dependentPrs: number[] = []): StartTestRun => ({
  type: 'StartTestRun',
  testRunId,
  testBranch: `railyard-merge/pr-${prNumbers[0]}/${testRunId}`,
  testBranchSha: 'sha-test',
  baseSha: 'main-0',
  baseTree: 'T',
  steps: [...dependentPrs, ...prNumbers].map((n, i) => ({ prNumber: n, sha: `c${i}`, tree: `t${i}` })),
  prNumbers,
  dependentPrs,
  requiredStatuses: ['tests'],
  requiredStatusesSource: 'merge_instance',
});
const failedBatch = (settings = {}): QueueEvent[] => [
  ...queueWith({ batch: true, ...settings }, [1, 2, 3, 4]),
  ...batchStarted('b1', [1, 2, 3, 4]),
  ...batchFailed('b1', [1, 2, 3, 4]),
];

describe('StartTestRun with several PRs', () => {
  it('when pending PRs start together, then one run tests them all as a batch', () => {
    const { type: _t, ...data } = start('b1', [1, 2, 3]);
    givenEngine(queueWith({ batch: true }, [1, 2, 3]))
      .when(start('b1', [1, 2, 3]))
      .then([
        { type: 'TestRunStarted', data: { ...data, bisection: false, at: NOW } },
        ...[1, 2, 3].map((prNumber): QueueEvent => ({ type: 'PrTestingStarted', data: { prNumber, testRunId: 'b1', at: NOW } })),
      ]);
  });

  it('when the PRs are pending failure on one failed run, then the start is a bisection of it: they go back to pending and test again', () => {
    const { type: _t, ...data } = start('h1', [1, 2]);
    givenEngine(failedBatch())
      .when(start('h1', [1, 2]))
      .then([
        { type: 'TestsRestarted', data: { prNumber: 1, reason: 'BISECTION_REQUIRED', at: NOW } },
        { type: 'TestsRestarted', data: { prNumber: 2, reason: 'BISECTION_REQUIRED', at: NOW } },
        { type: 'TestRunStarted', data: { ...data, bisection: true, bisectionOf: 'b1', at: NOW } },
        { type: 'PrTestingStarted', data: { prNumber: 1, testRunId: 'h1', at: NOW } },
        { type: 'PrTestingStarted', data: { prNumber: 2, testRunId: 'h1', at: NOW } },
      ]);
  });

  it('when pending and pending-failure PRs are mixed, then the start is refused', () => {
    givenEngine([...failedBatch(), prSubmitted(5)])
      .when(start('x', [4, 5]))
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it('when a PR is named twice, then the start is refused with INVALID_ARGUMENT', () => {
    givenEngine(queueWith({}, [1, 2]))
      .when(start('x', [2], [2]))
      .thenThrows('INVALID_ARGUMENT');
  });

  it('when the bisection run is recorded, then it knows the failed run and the PRs it tested', () => {
    const s = foldQueue([...failedBatch(), ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1' })]);
    expect(s.runs.get('h1')).toMatchObject({ bisection: true, bisectionOf: 'b1', bisectedPrs: [1, 2, 3, 4] });
  });
});

describe('CompleteTestRun of batches and bisection runs', () => {
  const halves = (settings = {}) => [
    ...failedBatch(settings),
    ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1' }),
    statusReported('h1', 'tests', 'success'),
  ];

  it('when a bisection run passes, then its PRs are cleared and go back to the queue (BISECTION_TEST_RUN_PASSED)', () => {
    givenEngine(halves())
      .when({ type: 'CompleteTestRun', testRunId: 'h1', outcome: 'passed' })
      .then([
        { type: 'TestRunSucceeded', data: { testRunId: 'h1', at: NOW } },
        { type: 'TestsRestarted', data: { prNumber: 1, reason: 'BISECTION_TEST_RUN_PASSED', at: NOW } },
        { type: 'TestsRestarted', data: { prNumber: 2, reason: 'BISECTION_TEST_RUN_PASSED', at: NOW } },
      ]);
  });

  it('when a bisection run passes and redundant tests are skipped, then its result is reused: PASSED_BY_OPTIMIZATION', () => {
    givenEngine(halves({ optimizationMode: 'bisection_skip_redundant_tests' }))
      .when({ type: 'CompleteTestRun', testRunId: 'h1', outcome: 'passed' })
      .then([
        { type: 'TestRunSucceeded', data: { testRunId: 'h1', at: NOW } },
        { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'h1', reason: 'PASSED_BY_OPTIMIZATION', at: NOW } },
        { type: 'PrTestsPassed', data: { prNumber: 2, testRunId: 'h1', reason: 'PASSED_BY_OPTIMIZATION', at: NOW } },
      ]);
  });

  it('when a batch times out, then its PRs are pending failure, to be bisected, instead of failing together', () => {
    givenEngine([...queueWith({ batch: true }, [1, 2]), ...batchStarted('b1', [1, 2])])
      .when({ type: 'CompleteTestRun', testRunId: 'b1', outcome: 'timed_out' })
      .then([
        { type: 'TestRunTimedOut', data: { testRunId: 'b1', at: NOW } },
        { type: 'PrPendingFailure', data: { prNumber: 1, testRunId: 'b1', failedContexts: [], at: NOW } },
        { type: 'PrPendingFailure', data: { prNumber: 2, testRunId: 'b1', failedContexts: [], at: NOW } },
      ]);
  });
});

describe('FailByOptimization', () => {
  const both = [
    ...failedBatch({ optimizationMode: 'bisection_skip_redundant_tests' }),
    ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1' }),
    ...batchStarted('h2', [3, 4], [], { bisectionOf: 'b1' }),
  ];

  it('when the other half passed, then the half still running is cancelled and its PRs are pending failure on it', () => {
    givenEngine([...both, ...batchPassed('h1', [1, 2], 'PASSED_BY_OPTIMIZATION')])
      .when({ type: 'FailByOptimization', testRunId: 'h2', provenBy: 'h1' })
      .then([
        { type: 'TestRunCancelled', data: { testRunId: 'h2', reason: 'BISECTION_SKIP_REDUNDANT', at: NOW } },
        { type: 'PrPendingFailure', data: { prNumber: 3, testRunId: 'h2', failedContexts: [], at: NOW } },
        { type: 'PrPendingFailure', data: { prNumber: 4, testRunId: 'h2', failedContexts: [], at: NOW } },
      ]);
  });

  it('when the proof is not a passed half of the same bisection, then INVALID_ARGUMENT', () => {
    givenEngine(both).when({ type: 'FailByOptimization', testRunId: 'h2', provenBy: 'h1' }).thenThrows('INVALID_ARGUMENT');
  });

  it('when the half already ended, then nothing is decided', () => {
    givenEngine([...both, ...batchPassed('h1', [1, 2], 'PASSED_BY_OPTIMIZATION'), ...batchFailed('h2', [3, 4])])
      .when({ type: 'FailByOptimization', testRunId: 'h2', provenBy: 'h1' })
      .then([]);
  });
});

describe('urgent pre-emption and merges on the record', () => {
  it('when a PR waiting for its run again is interrupted by an urgent PR, then it gives up its place', () => {
    const history = [
      ...queueWith({}, [1]),
      ...runStarted('r1', 1),
      { type: 'TestsRestarted', data: { prNumber: 1, reason: 'TESTS_RESTARTED_BY_API_REQUEST', at: at(46) } } as QueueEvent,
    ];
    givenEngine(history)
      .when({ type: 'RestartTests', prNumber: 1, reason: 'SKIP_THE_LINE_INTERRUPTED' })
      .then([{ type: 'TestsRestarted', data: { prNumber: 1, reason: 'SKIP_THE_LINE_INTERRUPTED', at: NOW } }]);
    expect(
      foldQueue([
        ...history,
        { type: 'TestsRestarted', data: { prNumber: 1, reason: 'SKIP_THE_LINE_INTERRUPTED', at: at(47) } },
      ]).entries.get(1)?.flightSeq,
    ).toBeUndefined();
  });

  it('when a PR that never started is interrupted, then nothing is decided', () => {
    givenEngine(queueWith({}, [1]))
      .when({ type: 'RestartTests', prNumber: 1, reason: 'SKIP_THE_LINE_INTERRUPTED' })
      .then([]);
  });

  it('when a merge names the head it was made on, then the state remembers which head it left behind', () => {
    const s = foldQueue([
      ...queueWith({}, [1, 2]),
      ...runStarted('r1', 1),
      merged(1, 'r1', at(48), 'main-0'),
      queueConfigUpdated({ concurrency: 2 }, undefined, at(49)),
    ]);
    expect([...s.mergedOnto]).toEqual([['merge-1', 'main-0']]);
  });
});
