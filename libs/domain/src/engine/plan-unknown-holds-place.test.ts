import type { QueueEvent } from '../events';
import { foldQueue } from '../state';
import { NOW } from '../testing/decider-spec';
import { at } from '../testing/fixtures';
import { plan } from './plan';
import { facts, prOneReRun, runFailed, runPassed, runStarted } from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { blamed, queueWith, rec, startOf } from './testing/plan-helpers';

/**
 * With `unknownFailuresHoldPlace` (D322), a lone failure that no test results name keeps its place
 * while its re-run goes on beside the queue, and the runs stacked on it judge it: they include its
 * change, so the first of them to pass proves it, and the first to fail is evidence of a real break.
 */
const UNKNOWN = 'required check(s) tests failed and no test results name a failing test; re-run 1 of 1 on the same commit';

/** PRs 1, 2, 3 in flight at concurrency 3, stacked on each other; PR 1's run r1 failed, no results. */
const failedUnderOthers = (): QueueEvent[] => [
  ...queueWith({ flakeRetries: 1, concurrency: 3, unknownFailuresHoldPlace: true }, [1, 2, 3, 4]),
  ...runStarted('r1', 1),
  ...runStarted('r2', 2, [1]),
  ...runStarted('r3', 3, [1, 2]),
  ...runFailed('r1', 1),
];

const reRun = (): QueueEvent[] =>
  prOneReRun({ testRunId: 'rr1', of: 'r1', attempt: 1, cause: 'NO_TEST_RESULTS', detail: UNKNOWN, when: at(48) });

describe('a failure of unknown kind holds its place while the runs behind judge it (unknownFailuresHoldPlace)', () => {
  it('when a PR fails under others with no test results, then the runs stacked on it go on and its re-run starts at once', () => {
    expect(givenQueue(failedUnderOthers()).planned(facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'r1', cause: 'NO_TEST_RESULTS', detail: UNKNOWN }),
    ]);
  });

  it('when its re-run is in flight, then a new run leaves it out, as most such failures are real', () => {
    expect(givenQueue([...failedUnderOthers(), ...reRun()]).planned(facts())).toEqual([startOf(4, [2, 3])]);
  });

  it('when a run stacked on it passes before its re-run ends, then that run vouches for it and the next run stacks it (D336)', () => {
    const history = [...failedUnderOthers(), ...reRun(), ...runPassed('r2', 2, at(50))];
    expect(givenQueue(history).planned(facts())).toEqual([startOf(4, [1, 2, 3])]);
  });

  it('when a run stacked on it fails, then the runs stacked on it restart without it at once', () => {
    const history = [...failedUnderOthers(), ...reRun(), ...runFailed('r2', 2, at(50))];
    expect(givenQueue(history).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when its re-run fails while the runs stacked on it are testing, then it is not ejected yet and new runs leave it out (D336)', () => {
    const history = [...failedUnderOthers(), ...reRun(), ...runFailed('rr1', 1, at(50))];
    expect(givenQueue(history).planned(facts())).toEqual([startOf(4, [2, 3])]);
  });

  it('when its re-run fails and a run stacked on it failed, then it is ejected once the runs behind restarted without it', () => {
    const history = [...failedUnderOthers(), ...reRun(), ...runFailed('r2', 2, at(49)), ...runFailed('rr1', 1, at(50))];
    const restartedBehind: QueueEvent[] = [2, 3].map((prNumber) => ({
      type: 'TestsRestarted',
      data: { prNumber, reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(49) },
    }));
    const cancelled: QueueEvent = { type: 'TestRunCancelled', data: { testRunId: 'r3', reason: 'TESTS_RESTARTED', at: at(49) } };
    expect(givenQueue([...history, ...restartedBehind, cancelled]).planned(facts())).toEqual([blamed(1, 'rr1')]);
  });

  it('when the setting is off, then the runs stacked on it restart without it as before (D204)', () => {
    const off = failedUnderOthers().map((e) =>
      e.type === 'QueueCreated' ? { ...e, data: { ...e.data, settings: { ...e.data.settings, unknownFailuresHoldPlace: false } } } : e,
    );
    expect(givenQueue(off).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });
});

describe('a run that left a suspect out outlives the failures it caused (staleness)', () => {
  /** PR 4's run r4 stacks 2 and 3 but not PR 1, held on suspicion; runs r2 and r3 stacked 1 and then fail. */
  const suspectLeftOut = (): QueueEvent[] => [
    ...failedUnderOthers(),
    ...reRun(),
    ...runStarted('r4', 4, [2, 3]),
    ...runFailed('r2', 2, at(50)),
    ...runFailed('r3', 3, at(50)),
  ];

  it('when the runs stacked on the suspect fail, then they restart without it and the run that left it out goes on', () => {
    expect(givenQueue(suspectLeftOut()).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when those PRs restarted, then their new runs start under it and it is not started again', () => {
    const restartedBehind: QueueEvent[] = [2, 3].map((prNumber) => ({
      type: 'TestsRestarted',
      data: { prNumber, reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(50) },
    }));
    expect(givenQueue([...suspectLeftOut(), ...restartedBehind]).planned(facts())).toEqual([startOf(2, []), startOf(3, [2])]);
  });
});

describe('a PR back from a passing re-run behind the runs that left it out', () => {
  /** PR 1 held; runs r3 and r4 left it out; then r2, stacked on it, fails as its re-run passes. */
  const backBehind = (): QueueEvent[] => [
    ...queueWith({ flakeRetries: 1, concurrency: 4, unknownFailuresHoldPlace: true }, [1, 2, 3, 4, 5]),
    ...runStarted('r1', 1),
    ...runStarted('r2', 2, [1]),
    ...runFailed('r1', 1),
    ...reRun(),
    ...runStarted('r3', 3, [2]),
    ...runStarted('r4', 4, [2, 3]),
    ...runFailed('r2', 2, at(50)),
    ...runPassed('rr1', 1, at(50)),
    { type: 'TestsRestarted', data: { prNumber: 1, reason: 'FLAKE_RETRY_PASSED', at: at(50) } },
  ];

  it('when the PR it stacked comes back behind it, then it restarts without it and keeps its place', () => {
    expect(givenQueue(backBehind()).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when it restarted, then it runs alone under the runs that left the PR out, which go on', () => {
    const restarted: QueueEvent = { type: 'TestsRestarted', data: { prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(50) } };
    expect(givenQueue([...backBehind(), restarted]).planned(facts())).toEqual([startOf(2), startOf(1, [2, 3, 4])]);
  });
});

describe('a failure behind a flake that its own PR explains (D342)', () => {
  /** PR 1 failed, its re-run rr1 started; PR 2's run on it failed too, and PR 2 is testing again alone (r2b); rr1 failed. */
  const behindAlone = (): QueueEvent[] => [
    ...failedUnderOthers(),
    ...reRun(),
    ...runFailed('r2', 2, at(49)),
    ...[2, 3].map((prNumber): QueueEvent => ({
      type: 'TestsRestarted',
      data: { prNumber, reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(49) },
    })),
    { type: 'TestRunCancelled', data: { testRunId: 'r3', reason: 'TESTS_RESTARTED', at: at(49) } },
    ...runStarted('r2b', 2),
    ...runFailed('rr1', 1, at(50)),
  ];
  /** A queue whose re-runs of such failures pass half the time. */
  const flaky = (history: QueueEvent[]) => ({ ...foldQueue(history), rerunPasses: { rate: 0.5, count: 20 } });
  const retryAgain = rec({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'NO_TEST_RESULTS', detail: UNKNOWN.replace('1 of 1', '2 of 2') });

  it('when the PR behind is testing again without it, then its re-run’s failure waits for that verdict', () => {
    expect(plan(flaky(behindAlone()), NOW, facts())).not.toContainEqual(blamed(1, 'rr1'));
  });

  it('when the PR behind then fails without it too, then that failure was its own and the PR gets one re-run more', () => {
    const planned = plan(flaky([...behindAlone(), ...runFailed('r2b', 2, at(52))]), NOW, facts());
    expect(planned).toContainEqual(retryAgain);
    expect(planned).not.toContainEqual(blamed(1, 'rr1'));
  });

  it('when the PR behind then passes without it, then its failure on top of it stands and the PR is ejected', () => {
    expect(plan(flaky([...behindAlone(), ...runPassed('r2b', 2, at(52))]), NOW, facts())).toContainEqual(blamed(1, 'rr1'));
  });

  it('when the queue’s re-runs never pass, then it is ejected at once, as before', () => {
    expect(givenQueue(behindAlone()).planned(facts())).toContainEqual(blamed(1, 'rr1'));
  });
});
