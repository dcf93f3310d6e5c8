import type { QueueEvent } from '../events';
import { at } from '../testing/fixtures';
import type { HostFacts } from './facts';
import { facts, prOneReRun, runFailed, runPassed, runStarted } from './testing/engine-fixtures';
import { givenEngine, givenQueue } from './testing/engine-spec';
import { blamed, mergeStep, queueWith, rec, startOf } from './testing/plan-helpers';

/**
 * A failure that names only tests classified flaky holds its place (D310, docs/engine.md, Flakes): it
 * is most likely a flake, so the runs stacked on the PR go on while its re-run goes on beside the
 * queue, instead of restarting without it and restarting again when the re-run clears it.
 */
const FLAKY = 'only tests classified flaky or quarantined failed: login works (flaky); re-run 1 of 1 on the same commit';

/** PR 1's run failing, with the judgement its test results gave. */
const failedJudged = (testRunId: string, when: string, judgement: 'flaky' | 'genuine', detail: string): QueueEvent[] =>
  runFailed(testRunId, 1, when).map((e) =>
    e.type === 'TestRunFailed' ? { ...e, data: { ...e.data, judgement, judgementDetail: detail } } : e,
  );
/** PR 1's run failing where only a test classified flaky failed. */
const failedOnFlakyTest = (testRunId: string, when = at(47)): QueueEvent[] => failedJudged(testRunId, when, 'flaky', 'login works (flaky)');

/** PRs 1, 2, 3 in flight at concurrency 3, stacked on each other; PR 1's run r1 failed on a flaky test. */
const flakedUnderOthers = (): QueueEvent[] => [
  ...queueWith({ flakeRetries: 1, concurrency: 3 }, [1, 2, 3, 4]),
  ...runStarted('r1', 1),
  ...runStarted('r2', 2, [1]),
  ...runStarted('r3', 3, [1, 2]),
  ...failedOnFlakyTest('r1'),
];

/** PR 1's failed run `of` re-run as `id` on the same commit (attempt `attempt`). */
const reRun = (id = 'rr1', of = 'r1', attempt = 1): QueueEvent[] =>
  prOneReRun({ testRunId: id, of, attempt, cause: 'FLAKY_TESTS', detail: FLAKY, when: at(48) });

/** What the JUnit uploads for the test commit r1-c0 say: only `login works`, classified flaky, failed. */
const withFlakyTest = (): HostFacts => ({
  ...facts(),
  testResults: new Map([['r1-c0', { failing: [{ context: 'tests', name: 'login works', health: 'flaky' }] }]]),
});

const reRunPassed = (): QueueEvent[] => [
  { type: 'TestRunStatusReported', data: { testRunId: 'rr1', context: 'tests', state: 'success', at: at(55) } },
  { type: 'TestRunSucceeded', data: { testRunId: 'rr1', at: at(55) } },
  { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'rr1', reason: 'FLAKE_RETRIED', at: at(55) } },
];

describe('a failure on tests classified flaky holds its place (flakeRetries, no anti-flake witnesses)', () => {
  it('when a PR fails under others only on a flaky test, then the runs stacked on it go on and its re-run starts at once', () => {
    expect(givenQueue(flakedUnderOthers()).planned(withFlakyTest())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'r1', cause: 'FLAKY_TESTS', detail: FLAKY }),
    ]);
  });

  it('when its re-run is in flight, then the next run stacks it with the runs already stacked on it', () => {
    expect(givenQueue([...flakedUnderOthers(), ...reRun()]).planned(facts())).toEqual([startOf(4, [1, 2, 3])]);
  });

  it('when its re-run passes, then it merges at its place and the runs stacked on it still decide the PRs behind', () => {
    const history = [...flakedUnderOthers(), ...reRun(), ...runPassed('r2', 2, at(50)), ...reRunPassed()];
    const merge = mergeStep(1, 'rr1', 0, { sha: 'main-0', tree: 'T' }, 'T+1');
    expect(givenQueue(history).planned(facts())).toEqual([{ ...merge, after: { sha: 'r1-c0', tree: 'T+1' } }]);
  });

  it('when a run stacked on it passes first, then that PR waits behind it rather than merging past it', () => {
    const history = [...flakedUnderOthers(), ...reRun(), ...runStarted('r4', 4, [1, 2, 3]), ...runPassed('r2', 2, at(50))];
    expect(givenQueue(history).planned(facts())).toEqual([]);
  });

  it('when its re-run fails on a flaky test again, then it gets another re-run rather than an ejection', () => {
    const history = [...flakedUnderOthers(), ...reRun(), ...failedOnFlakyTest('rr1', at(56))];
    const again = 'only tests classified flaky or quarantined failed: login works (flaky); re-run 2 of 3 on the same commit';
    expect(givenQueue(history).planned(withFlakyTest())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'FLAKY_TESTS', detail: again }),
    ]);
  });

  it('when the re-run that failed on a flaky test again is recorded, then the decider takes it, past flakeRetries', () => {
    const history = [...flakedUnderOthers(), ...reRun(), ...failedOnFlakyTest('rr1', at(56))];
    expect(
      givenEngine(history).when({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'FLAKY_TESTS', detail: FLAKY }).events(),
    ).toHaveLength(3);
    const unknown = [...flakedUnderOthers(), ...reRun(), ...runFailed('rr1', 1, at(56))];
    givenEngine(unknown)
      .when({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'FLAKY_TESTS', detail: FLAKY })
      .thenThrows('INVALID_ARGUMENT');
  });

  it('when its third re-run fails on a flaky test as well, then it is ejected', () => {
    const history = [
      ...flakedUnderOthers(),
      ...reRun(),
      ...failedOnFlakyTest('rr1', at(50)),
      ...reRun('rr2', 'rr1', 2),
      ...failedOnFlakyTest('rr2', at(52)),
      ...reRun('rr3', 'rr2', 3),
      ...failedOnFlakyTest('rr3', at(54)),
    ];
    expect(givenQueue(history).planned(withFlakyTest())).toEqual([blamed(1, 'rr3')]);
  });

  it('when a run stacked on it passed and its third re-run fails on a flaky test as well, then it is re-run again (D345)', () => {
    const history = [
      ...flakedUnderOthers(),
      ...reRun(),
      ...runPassed('r2', 2, at(49)),
      ...failedOnFlakyTest('rr1', at(50)),
      ...reRun('rr2', 'rr1', 2),
      ...failedOnFlakyTest('rr2', at(52)),
      ...reRun('rr3', 'rr2', 3),
      ...failedOnFlakyTest('rr3', at(54)),
    ];
    const fourth = 'only tests classified flaky or quarantined failed: login works (flaky); re-run 4 of 5 on the same commit';
    expect(givenQueue(history).planned(withFlakyTest())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'rr3', cause: 'FLAKY_TESTS', detail: fourth }),
    ]);
  });

  it('when its re-run fails on a healthy test, then the runs stacked on it restart without it at once', () => {
    const genuine = failedJudged('rr1', at(56), 'genuine', 'totals add up (healthy)');
    expect(givenQueue([...flakedUnderOthers(), ...reRun(), ...genuine]).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when its re-run fails too, then it is ejected and the runs stacked on it restart without it', () => {
    const history = [...flakedUnderOthers(), ...reRun(), ...runFailed('rr1', 1, at(56))];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'rr1')]);
    const ejected: QueueEvent = {
      type: 'PrFailed',
      data: {
        prNumber: 1,
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        detail: 'required status check(s) failed: tests',
        testRunId: 'rr1',
        at: at(57),
      },
    };
    expect(givenQueue([...history, ejected]).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });
});
