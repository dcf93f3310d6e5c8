import type { QueueEvent } from '../events';
import { at } from '../testing/fixtures';
import { NOW } from '../testing/decider-spec';
import type { FailingTest, HostFacts } from './facts';
import { batchFailed, batchStarted, facts, prOneReRun, runFailed, runStarted, statusReported } from './testing/engine-fixtures';
import { givenEngine, givenQueue } from './testing/engine-spec';
import { blamed, queueWith, rec } from './testing/plan-helpers';

/**
 * Flakes (docs/engine.md, Flakes): a failure that may be a flake is re-run on the same commit before
 * anyone is blamed (flakeRetries), and what the run's test results say decides whether it may be one.
 */
const withTests = (f: HostFacts, sha: string, failing: FailingTest[]): HostFacts => ({ ...f, testResults: new Map([[sha, { failing }]]) });
const flaky = (name: string): FailingTest => ({ context: 'tests', name, health: 'flaky' });
const healthy = (name: string): FailingTest => ({ context: 'tests', name, health: 'healthy' });
const quarantined = (name: string): FailingTest => ({ context: 'tests', name, health: 'quarantined' });

/** PR 1 alone, its run r1 failed on `tests` (test commit r1-c0). */
const loneFailure = (flakeRetries = 1): QueueEvent[] => [
  ...queueWith({ flakeRetries }, [1]),
  ...runStarted('r1', 1),
  ...runFailed('r1', 1),
];

/** The events RetryTestRun records for PR 1's run r1 (id-1 from the test context). */
const retried = (cause: 'NO_TEST_RESULTS' | 'FLAKY_TESTS', detail: string, attempt = 1, of = 'r1'): QueueEvent[] =>
  prOneReRun({ testRunId: 'id-1', of, attempt, cause, detail, when: NOW });

const NO_RESULTS = 'required check(s) tests failed and no test results name a failing test; re-run 1 of 1 on the same commit';

describe('flake re-runs (flakeRetries)', () => {
  it('when a PR failed alone and no test results name a failing test, then its run is re-run on the same commit instead of blamed', () => {
    expect(givenQueue(loneFailure()).planned(facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'r1', cause: 'NO_TEST_RESULTS', detail: NO_RESULTS }),
    ]);
  });

  it('when anti-flake protection waits for a witness and nothing is queued behind the failure, then the re-run is its witness', () => {
    const history = [
      ...queueWith({ canOptimisticallyMerge: true, pendingFailureDepth: 1, flakeRetries: 1 }, [1]),
      ...runStarted('r1', 1),
      ...runFailed('r1', 1),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'r1', cause: 'NO_TEST_RESULTS', detail: NO_RESULTS }),
    ]);
  });

  it('when flakeRetries is 0, then a lone failure is blamed at once as before', () => {
    expect(givenQueue(loneFailure(0)).planned(facts())).toEqual([blamed(1, 'r1')]);
  });

  it('when the CI cannot run checks again on the same commit (a forge CI started by pushes), then a lone failure is blamed at once: a re-run would wait for ever', () => {
    expect(givenQueue(loneFailure()).planned({ ...facts(), sameCommitReruns: false })).toEqual([blamed(1, 'r1')]);
  });

  it('when the failed check is one the CI does not run itself (an outside CI reporting over HTTP), then the PR is blamed: nobody would run it again', () => {
    const f: HostFacts = { ...facts(), rerunnable: new Map([['r1-c0', new Set(['build'])]]) };
    expect(givenQueue(loneFailure()).planned(f)).toEqual([blamed(1, 'r1')]);
    const own: HostFacts = { ...facts(), rerunnable: new Map([['r1-c0', new Set(['tests'])]]) };
    expect(givenQueue(loneFailure()).planned(own)).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'r1', cause: 'NO_TEST_RESULTS', detail: NO_RESULTS }),
    ]);
  });

  it('when the re-run is recorded, then the PR restarts (FLAKE_RETRY) onto a new run with the same branch, commit and stack, saying why', () => {
    givenEngine(loneFailure())
      .when({ type: 'RetryTestRun', testRunId: 'r1', cause: 'NO_TEST_RESULTS', detail: NO_RESULTS })
      .then(retried('NO_TEST_RESULTS', NO_RESULTS));
  });

  it('when the re-run was recorded already, then recording it again decides nothing', () => {
    const history = [...loneFailure(), ...retried('NO_TEST_RESULTS', NO_RESULTS)];
    givenEngine(history).when({ type: 'RetryTestRun', testRunId: 'r1', cause: 'NO_TEST_RESULTS', detail: NO_RESULTS }).then([]);
  });

  it('when the re-run passes, then the PR passes with reason FLAKE_RETRIED', () => {
    const history = [...loneFailure(), ...retried('NO_TEST_RESULTS', NO_RESULTS), statusReported('id-1', 'tests', 'success', at(50))];
    givenEngine(history)
      .when({ type: 'CompleteTestRun', testRunId: 'id-1', outcome: 'passed' })
      .then([
        { type: 'TestRunSucceeded', data: { testRunId: 'id-1', at: NOW } },
        { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'id-1', reason: 'FLAKE_RETRIED', at: NOW } },
      ]);
  });

  it('when CI still shows the report that failed the first run, then the re-run does not take it as its own answer', () => {
    const history = [
      ...loneFailure(),
      { type: 'TestRunStatusReported', data: { testRunId: 'r1', context: 'tests', state: 'failure', url: 'ci/r1', at: at(46) } },
      ...retried('NO_TEST_RESULTS', NO_RESULTS),
    ] as QueueEvent[];
    const engine = givenEngine(history);
    engine.when({ type: 'ReportTestStatus', testRunId: 'id-1', context: 'tests', state: 'failure', url: 'ci/r1' }).then([]);
    expect(
      engine.when({ type: 'ReportTestStatus', testRunId: 'id-1', context: 'tests', state: 'failure', url: 'ci/id-1' }).events(),
    ).toHaveLength(1);
  });

  it('when the re-run fails as well and no re-run is left, then the PR is blamed', () => {
    const history = [...loneFailure(), ...retried('NO_TEST_RESULTS', NO_RESULTS), ...runFailed('id-1', 1, at(80))];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'id-1')]);
  });

  it('when a re-run past flakeRetries is asked for, then it is refused', () => {
    const history = [...loneFailure(), ...retried('NO_TEST_RESULTS', NO_RESULTS), ...runFailed('id-1', 1, at(80))];
    givenEngine(history)
      .when({ type: 'RetryTestRun', testRunId: 'id-1', cause: 'NO_TEST_RESULTS', detail: 'x' })
      .thenThrows('INVALID_ARGUMENT');
  });

  it('when the failed run and its re-run share a test branch, then the branch is not swept while the re-run lives', () => {
    const history = [...loneFailure(), ...retried('NO_TEST_RESULTS', NO_RESULTS)];
    expect(givenQueue(history).planned(facts({ branches: ['r1'] }))).toEqual([]);
  });
});

describe('decisions that use test health', () => {
  it('when every failing test is classified flaky, then the run is re-run and the history names the tests', () => {
    const f = withTests(facts(), 'r1-c0', [flaky('login works')]);
    expect(givenQueue(loneFailure()).planned(f)).toEqual([
      rec({
        type: 'RetryTestRun',
        testRunId: 'r1',
        cause: 'FLAKY_TESTS',
        detail: 'only tests classified flaky or quarantined failed: login works (flaky); re-run 1 of 1 on the same commit',
      }),
    ]);
  });

  it('when a failing test is healthy, then the PR is blamed at once, no re-run spent', () => {
    const f = withTests(facts(), 'r1-c0', [flaky('login works'), healthy('totals add up')]);
    expect(givenQueue(loneFailure()).planned(f)).toEqual([blamed(1, 'r1')]);
  });

  it('when a run fails on a healthy test, then its failure is recorded as genuine with the test named', () => {
    const history = [...queueWith({}, [1]), ...runStarted('r1', 1), statusReported('r1', 'tests', 'failure')];
    const f = withTests(facts({ statuses: [['r1-c0', [{ context: 'tests', state: 'failure' }]]] }), 'r1-c0', [healthy('totals add up')]);
    expect(givenQueue(history).planned(f)).toEqual([
      rec({
        type: 'CompleteTestRun',
        testRunId: 'r1',
        outcome: 'failed',
        failedContexts: ['tests'],
        judgement: 'genuine',
        judgementDetail: 'totals add up (healthy)',
      }),
    ]);
  });

  it('when a genuine failure would wait for a witness, then it does not: it is blamed at once', () => {
    const history = [
      ...queueWith({ canOptimisticallyMerge: true, pendingFailureDepth: 1, flakeRetries: 1 }, [1, 2]),
      ...runStarted('r1', 1),
      ...runFailed('r1', 1),
    ];
    const f = withTests(facts(), 'r1-c0', [healthy('totals add up')]);
    expect(givenQueue(history).planned(f)).toEqual([blamed(1, 'r1')]);
  });

  it('when the only failing test is quarantined, then the run passes and says which test it waived', () => {
    const history = [...queueWith({}, [1]), ...runStarted('r1', 1), statusReported('r1', 'tests', 'failure')];
    const f = withTests(facts(), 'r1-c0', [quarantined('sometimes slow')]);
    const waived = [{ context: 'tests', tests: ['sometimes slow'] }];
    expect(givenQueue(history).planned(f)).toEqual([
      rec({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed', quarantined: waived }),
    ]);
    givenEngine(history)
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed', quarantined: waived })
      .then([
        { type: 'TestRunSucceeded', data: { testRunId: 'r1', quarantined: waived, at: NOW } },
        { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'r1', reason: 'TEST_RUN_PASSED', at: NOW } },
      ]);
  });

  it('when a quarantined test failed but another failed check names no failing test, then the run fails', () => {
    const history = [
      ...queueWith({}, [1]),
      ...runStarted('r1', 1, [], { requiredStatuses: ['tests', 'lint'] }),
      statusReported('r1', 'tests', 'failure'),
      statusReported('r1', 'lint', 'failure'),
    ];
    const f = withTests(facts(), 'r1-c0', [quarantined('sometimes slow')]);
    expect(givenQueue(history).planned(f)).toEqual([
      rec({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'failed', failedContexts: ['tests', 'lint'] }),
    ]);
  });

  it('when a pass is claimed for quarantined checks that did not fail, then it is refused', () => {
    const history = [...queueWith({}, [1]), ...runStarted('r1', 1), statusReported('r1', 'tests', 'pending')];
    givenEngine(history)
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed', quarantined: [{ context: 'tests', tests: ['x'] }] })
      .thenThrows('INVALID_ARGUMENT');
  });
});

describe('flake-aware bisection', () => {
  const batch = (): QueueEvent[] => [
    ...queueWith({ batch: true, batchingMinSize: 2, bisectionConcurrency: 2, flakeRetries: 1 }, [1, 2]),
    ...batchStarted('b1', [1, 2]),
    ...batchFailed('b1', [1, 2]),
  ];

  it('when a failed batch may have flaked, then it is re-run once on the same commit before it is split', () => {
    const f = withTests(facts(), 'b1-c1', [flaky('login works')]);
    expect(givenQueue(batch()).planned(f)).toEqual([
      rec({
        type: 'RetryTestRun',
        testRunId: 'b1',
        cause: 'FLAKY_TESTS',
        detail: 'only tests classified flaky or quarantined failed: login works (flaky); re-run 1 of 1 on the same commit',
      }),
    ]);
  });

  it('when a failed batch failed on a healthy test, then it is split at once', () => {
    const f = withTests(facts(), 'b1-c1', [healthy('totals add up')]);
    const actions = givenQueue(batch()).planned(f);
    expect(actions.map((a) => (a.kind === 'startRun' ? a.prNumbers : a.kind))).toEqual([[1], [2]]);
  });
});
