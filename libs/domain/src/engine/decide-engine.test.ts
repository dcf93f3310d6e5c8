import { foldQueue } from '../state';
import { NOW } from '../testing/decider-spec';
import { prCancelled, prSubmitted, queueCreated } from '../testing/fixtures';
import type { StartTestRun } from './commands';
import { failed, merged, passedBy, restarted, runFailed, runPassed, runStarted, statusReported } from './testing/engine-fixtures';
import { givenEngine } from './testing/engine-spec';

const start = (testRunId: string, prNumber: number, dependentPrs: number[] = []): StartTestRun => ({
  type: 'StartTestRun',
  testRunId,
  testBranch: `railyard-merge/pr-${prNumber}/${testRunId}`,
  testBranchSha: 'sha-test',
  baseSha: 'main-0',
  baseTree: 'T',
  steps: [...dependentPrs, prNumber].map((n, i) => ({ prNumber: n, sha: `c${i}`, tree: `t${i}` })),
  prNumbers: [prNumber],
  dependentPrs,
  requiredStatuses: ['tests'],
  requiredStatusesSource: 'merge_instance',
});

const queue = [queueCreated(), prSubmitted(1), prSubmitted(2), prSubmitted(3)];

describe('StartTestRun', () => {
  it('when the PR is pending, then the run starts and the PR is testing on it', () => {
    const { type: _t, ...data } = start('r1', 2, [1]);
    givenEngine([...queue, ...runStarted('r0', 1)])
      .when(start('r1', 2, [1]))
      .then([
        { type: 'TestRunStarted', data: { ...data, bisection: false, at: NOW } },
        { type: 'PrTestingStarted', data: { prNumber: 2, testRunId: 'r1', at: NOW } },
      ]);
  });

  it('when tested PRs change the gating configuration, then the run records them; a PR it only stacks is left out', () => {
    const command = {
      ...start('r1', 2, [1]),
      configNotUsed: [
        { prNumber: 2, files: ['.railyard.yml'] },
        { prNumber: 1, files: ['x'] },
      ],
    };
    const { type: _t, configNotUsed: _c, ...data } = command;
    givenEngine([...queue, ...runStarted('r0', 1)])
      .when(command)
      .then([
        {
          type: 'TestRunStarted',
          data: { ...data, bisection: false, configNotUsed: [{ prNumber: 2, files: ['.railyard.yml'] }], at: NOW },
        },
        { type: 'PrTestingStarted', data: { prNumber: 2, testRunId: 'r1', at: NOW } },
      ]);
  });

  it('when the run was already recorded, then nothing is decided again', () => {
    givenEngine([...queue, ...runStarted('r1', 1)])
      .when(start('r1', 1))
      .then([]);
  });

  it('when the PR is already testing on another run, then PR_NOT_IN_ACTIVE_STATE', () => {
    givenEngine([...queue, ...runStarted('r1', 1)])
      .when(start('r2', 1))
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it('when a PR to stack under it was cancelled meanwhile, then PR_NOT_IN_ACTIVE_STATE', () => {
    givenEngine([...queue, ...runStarted('r1', 1), prCancelled(1)])
      .when(start('r2', 2, [1]))
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it('when the queue does not exist, then QUEUE_NOT_FOUND', () => {
    givenEngine([]).when(start('r1', 1)).thenThrows('QUEUE_NOT_FOUND');
  });
});

describe('ReportTestStatus', () => {
  const report = (state: 'pending' | 'success' | 'failure', url?: string) =>
    ({ type: 'ReportTestStatus', testRunId: 'r1', context: 'tests', state, ...(url ? { url } : {}) }) as const;

  it('when a check reports, then its status is recorded on the run', () => {
    givenEngine([...queue, ...runStarted('r1', 1)])
      .when(report('success', 'file:///log'))
      .then([
        { type: 'TestRunStatusReported', data: { testRunId: 'r1', context: 'tests', state: 'success', url: 'file:///log', at: NOW } },
      ]);
  });

  it('when the same status is reported again, then nothing is recorded', () => {
    givenEngine([...queue, ...runStarted('r1', 1), statusReported('r1', 'tests', 'failure')])
      .when(report('failure'))
      .then([]);
  });

  it('when a late pending follows a result, then the result stands', () => {
    givenEngine([...queue, ...runStarted('r1', 1), statusReported('r1', 'tests', 'success')])
      .when(report('pending'))
      .then([]);
  });

  it('when the run has ended, then nothing is recorded', () => {
    givenEngine([...queue, ...runStarted('r1', 1), ...runPassed('r1', 1)])
      .when(report('failure'))
      .then([]);
  });
});

describe('CompleteTestRun', () => {
  it('when every required status succeeded, then the run succeeds and its PR passes', () => {
    givenEngine([...queue, ...runStarted('r1', 1), statusReported('r1', 'tests', 'success')])
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed' })
      .then([
        { type: 'TestRunSucceeded', data: { testRunId: 'r1', at: NOW } },
        { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'r1', reason: 'TEST_RUN_PASSED', at: NOW } },
      ]);
  });

  it('when a required status has not succeeded, then passing it is refused with INVALID_ARGUMENT', () => {
    givenEngine([...queue, ...runStarted('r1', 1)])
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed' })
      .thenThrows('INVALID_ARGUMENT');
  });

  it('when a required status failed, then the run fails and its PR is pending failure', () => {
    givenEngine([...queue, ...runStarted('r1', 1), statusReported('r1', 'tests', 'failure')])
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'failed', failedContexts: ['tests'] })
      .then([
        { type: 'TestRunFailed', data: { testRunId: 'r1', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['tests'], at: NOW } },
        { type: 'PrPendingFailure', data: { prNumber: 1, testRunId: 'r1', failedContexts: ['tests'], at: NOW } },
      ]);
  });

  it('when the run timed out, then it is recorded so and its PR fails with TEST_RUN_TIMEOUT', () => {
    givenEngine([...queue, ...runStarted('r1', 1)])
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'timed_out' })
      .then([
        { type: 'TestRunTimedOut', data: { testRunId: 'r1', at: NOW } },
        {
          type: 'PrFailed',
          data: {
            prNumber: 1,
            reason: 'TEST_RUN_TIMEOUT',
            detail: 'the test run did not finish within 300 minute(s)',
            testRunId: 'r1',
            at: NOW,
          },
        },
      ]);
  });

  it('when the outcome is already recorded, then nothing is decided again', () => {
    givenEngine([...queue, ...runStarted('r1', 1), ...runPassed('r1', 1)])
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed' })
      .then([]);
  });

  it('when the PR left the run (restarted), then the run ends without moving it', () => {
    givenEngine([...queue, ...runStarted('r1', 1), restarted(1), statusReported('r1', 'tests', 'success')])
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed' })
      .then([{ type: 'TestRunSucceeded', data: { testRunId: 'r1', at: NOW } }]);
  });
});

describe('CancelTestRun', () => {
  it('when the run is testing, then it is cancelled with the reason', () => {
    givenEngine([...queue, ...runStarted('r1', 1)])
      .when({ type: 'CancelTestRun', testRunId: 'r1', reason: 'PR_CANCELLED' })
      .then([{ type: 'TestRunCancelled', data: { testRunId: 'r1', reason: 'PR_CANCELLED', at: NOW } }]);
  });

  it('when the run already ended, then nothing is decided', () => {
    givenEngine([...queue, ...runStarted('r1', 1), ...runFailed('r1', 1)])
      .when({ type: 'CancelTestRun', testRunId: 'r1', reason: 'x' })
      .then([]);
  });
});

describe('PassBySuccessor', () => {
  const optimistic = [queueCreated({ settings: { canOptimisticallyMerge: true } }), ...queue.slice(1)];
  const history = [...optimistic, ...runStarted('r1', 1), ...runStarted('r2', 2, [1]), ...runPassed('r2', 2)];

  it('when a run stacking the PR passed, then the PR passes by it and its own run is cancelled', () => {
    givenEngine(history)
      .when({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r2' })
      .then([
        { type: 'TestRunCancelled', data: { testRunId: 'r1', reason: 'SUCCESSOR_TEST_RUN_PASSED', at: NOW } },
        { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'r2', reason: 'SUCCESSOR_TEST_RUN_PASSED', at: NOW } },
      ]);
  });

  it('when the PR already passed, then nothing is decided', () => {
    givenEngine([...history, passedBy(1, 'r2')])
      .when({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r2' })
      .then([]);
  });

  it('when canOptimisticallyMerge is off, then INVALID_ARGUMENT: a PR must pass its own run to merge (D336)', () => {
    givenEngine([...queue, ...runStarted('r1', 1), ...runStarted('r2', 2, [1]), ...runPassed('r2', 2)])
      .when({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r2' })
      .thenThrows('INVALID_ARGUMENT');
  });

  it('when the run did not stack the PR, then INVALID_ARGUMENT', () => {
    givenEngine([...optimistic, ...runStarted('r1', 1), ...runStarted('r3', 3), ...runPassed('r3', 3)])
      .when({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r3' })
      .thenThrows('INVALID_ARGUMENT');
  });
});

describe('MarkMerged', () => {
  const history = [...queue, ...runStarted('r1', 1), ...runPassed('r1', 1)];

  it('when the PR passed, then it is merged with the run that proved it', () => {
    givenEngine(history)
      .when({ type: 'MarkMerged', prNumber: 1, mergeSha: 'abc', testRunId: 'r1', reason: 'MERGE_GRAPH_MERGE' })
      .then([{ type: 'PrMerged', data: { prNumber: 1, mergeSha: 'abc', testRunId: 'r1', reason: 'MERGE_GRAPH_MERGE', at: NOW } }]);
  });

  it('when it is recorded a second time, then nothing is decided', () => {
    givenEngine([...history, merged(1, 'r1')])
      .when({ type: 'MarkMerged', prNumber: 1, mergeSha: 'abc', reason: 'MERGE_GRAPH_MERGE' })
      .then([]);
  });

  it('when the PR failed, then PR_NOT_IN_ACTIVE_STATE', () => {
    givenEngine([...queue, failed(1)])
      .when({ type: 'MarkMerged', prNumber: 1, mergeSha: 'abc', reason: 'MERGE_GRAPH_MERGE' })
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it('when a pending PR is merged directly, then it is merged without a run', () => {
    givenEngine(queue)
      .when({ type: 'MarkMerged', prNumber: 1, mergeSha: 'abc', reason: 'MERGE_GRAPH_DIRECT_MERGE' })
      .then([{ type: 'PrMerged', data: { prNumber: 1, mergeSha: 'abc', reason: 'MERGE_GRAPH_DIRECT_MERGE', at: NOW } }]);
  });
});

describe('FailPr, CancelForHostChange, RestartTests', () => {
  it('when a PR pending failure is blamed, then it fails with the reason and detail', () => {
    givenEngine([...queue, ...runStarted('r1', 1), ...runFailed('r1', 1)])
      .when({ type: 'FailPr', prNumber: 1, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'tests failed', testRunId: 'r1' })
      .then([
        {
          type: 'PrFailed',
          data: { prNumber: 1, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'tests failed', testRunId: 'r1', at: NOW },
        },
      ]);
  });

  it('when a pending PR does not merge onto the stack, then it fails with the conflict', () => {
    givenEngine(queue)
      .when({ type: 'FailPr', prNumber: 2, reason: 'START_TEST_RUN_MERGE_CONFLICT', detail: 'PR #2 conflicts with PR #1' })
      .then([
        { type: 'PrFailed', data: { prNumber: 2, reason: 'START_TEST_RUN_MERGE_CONFLICT', detail: 'PR #2 conflicts with PR #1', at: NOW } },
      ]);
  });

  it('when the PR is already terminal, then failing it decides nothing', () => {
    givenEngine([...queue, prCancelled(1)])
      .when({ type: 'FailPr', prNumber: 1, reason: 'TEST_RUN_TIMEOUT', detail: '' })
      .then([]);
  });

  it('when a testing PR was pushed to, then its run is cancelled and it is cancelled with PR_PUSHED_TO', () => {
    givenEngine([...queue, ...runStarted('r1', 1)])
      .when({ type: 'CancelForHostChange', prNumber: 1, reason: 'PR_PUSHED_TO' })
      .then([
        { type: 'TestRunCancelled', data: { testRunId: 'r1', reason: 'PR_PUSHED_TO', at: NOW } },
        { type: 'PrCancelled', data: { prNumber: 1, reason: 'PR_PUSHED_TO', at: NOW } },
      ]);
  });

  it('when a testing PR restarts because a PR under it failed, then its run is cancelled and it goes back to pending', () => {
    givenEngine([...queue, ...runStarted('r1', 1), ...runStarted('r2', 2, [1])])
      .when({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' })
      .then([
        { type: 'TestRunCancelled', data: { testRunId: 'r2', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: NOW } },
        { type: 'TestsRestarted', data: { prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: NOW } },
      ]);
  });

  it('when the PR already went back to pending, then restarting it decides nothing', () => {
    givenEngine([...queue, ...runStarted('r1', 1), restarted(1)])
      .when({ type: 'RestartTests', prNumber: 1, reason: 'MANUAL_PUSH_TO_TARGET_BRANCH' })
      .then([]);
  });
});

describe('RefreshReadiness', () => {
  it('when a not-ready PR became mergeable, then it is admitted as pending', () => {
    givenEngine([
      queueCreated(),
      prSubmitted(1, {
        state: 'not_ready',
        readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, mergeability: 'not_mergeable' },
      }),
    ])
      .when({ type: 'RefreshReadiness', prNumber: 1, headSha: 'sha-1', baseBranch: 'main', mergeability: 'mergeable' })
      .then([
        {
          type: 'PrReadinessChanged',
          data: {
            prNumber: 1,
            readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, mergeability: 'mergeable' },
            state: 'pending',
            reason: 'MERGE_ITEM_NOW_READY',
            at: NOW,
          },
        },
      ]);
  });

  it('when the answer is for another head, then nothing is decided', () => {
    givenEngine([queueCreated(), prSubmitted(1, { state: 'not_ready' })])
      .when({ type: 'RefreshReadiness', prNumber: 1, headSha: 'other', baseBranch: 'main', mergeability: 'mergeable' })
      .then([]);
  });
});

describe('test runs in the state', () => {
  it('when a PR restarts, then it keeps its place in flight and forgets nothing of its run until a new one starts', () => {
    const s = foldQueue([...queue, ...runStarted('r1', 1), ...runStarted('r2', 2, [1]), restarted(1)]);
    expect(s.entries.get(1)).toMatchObject({ state: 'pending', flightSeq: 0, testRunId: 'r1' });
    expect(s.entries.get(2)).toMatchObject({ state: 'testing', flightSeq: 1, testRunId: 'r2' });
    const after = foldQueue(runStarted('r3', 1), s);
    expect(after.entries.get(1)).toMatchObject({ state: 'testing', flightSeq: 0, testRunId: 'r3' });
  });

  it('when a run ended and no active PR needs it, then the state drops it', () => {
    const s = foldQueue([...queue, ...runStarted('r1', 1), ...runPassed('r1', 1)]);
    expect(s.runs.get('r1')).toMatchObject({ status: 'succeeded', statuses: { tests: { state: 'success' } } });
    expect(foldQueue([merged(1, 'r1')], s).runs.has('r1')).toBe(false);
  });
});
