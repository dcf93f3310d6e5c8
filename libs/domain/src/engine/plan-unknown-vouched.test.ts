import type { QueueEvent } from '../events';
import { foldQueue } from '../state';
import { NOW } from '../testing/decider-spec';
import { at } from '../testing/fixtures';
import { plan } from './plan';
import { BASE_SHA, BASE_TREE, failed, facts, prOneReRun, runFailed, runPassed, runStarted, treeWith } from './testing/engine-fixtures';
import { givenEngine, givenQueue } from './testing/engine-spec';
import { blamed, mergeStep, queueWith, rec, startOf } from './testing/plan-helpers';

/**
 * D336: a lone failure that no test results name holds its place by default, and the runs stacked on
 * it are evidence: one of them passing vouches for the PR's change, but without optimistic merging
 * the PR still merges only once its own re-run passes; a vouched PR whose re-runs fail is re-run
 * again up to MAX_VOUCHED_RETRIES (D345), then ejected, and the runs behind restart without it.
 */
const detail = (attempt: number, of: number): string =>
  `required check(s) tests failed and no test results name a failing test; re-run ${attempt} of ${of} on the same commit`;

/** PRs 1, 2, 3 stacked on each other at concurrency 3 with the queue's defaults; PR 1's run r1 failed, no results, re-run as rr1. */
const heldUnderOthers = (prs = [1, 2, 3], settings = {}): QueueEvent[] => [
  ...queueWith({ flakeRetries: 1, concurrency: 3, ...settings }, prs),
  ...runStarted('r1', 1),
  ...runStarted('r2', 2, [1]),
  ...runStarted('r3', 3, [1, 2]),
  ...runFailed('r1', 1),
  ...reRun('rr1', 'r1', 1),
];

/** PR 1's failed run `of` re-run as `id` on the same commit. */
function reRun(id: string, of: string, attempt: number): QueueEvent[] {
  return prOneReRun({ testRunId: id, of, attempt, cause: 'NO_TEST_RESULTS', detail: detail(attempt, attempt === 1 ? 1 : 5), when: at(48) });
}

/** The run stacked on PR 1 (r2) passed: it vouches for PR 1's change. */
const vouched = (): QueueEvent[] => [...heldUnderOthers(), ...runPassed('r2', 2, at(50))];

/** After the voucher, PR 1's re-runs rr1..rr<n> all failed. */
const reRunsFailed = (n: number): QueueEvent[] => {
  const out: QueueEvent[] = [...vouched(), ...runFailed('rr1', 1, at(51))];
  for (let i = 2; i <= n; i++) out.push(...reRun(`rr${i}`, `rr${i - 1}`, i), ...runFailed(`rr${i}`, 1, at(51 + i)));
  return out;
};

describe('a held failure of unknown kind is vouched for by the runs stacked on it (D336, on by default)', () => {
  it('when a run stacked on it passes and optimistic merging is off, then it does not pass by that run and nothing merges yet', () => {
    expect(givenQueue(vouched()).planned(facts())).toEqual([]);
  });

  it('when a run stacked on it passed, then new runs stack it again and the runs behind keep theirs', () => {
    const history = [...heldUnderOthers([1, 2, 3, 4]), ...runPassed('r2', 2, at(50))];
    expect(givenQueue(history).planned(facts())).toEqual([startOf(4, [1, 2, 3])]);
  });

  it('when a run stacked on it passed and then its own re-run passes, then it merges from its re-run', () => {
    expect(givenQueue(vouched()).planned(facts())).toEqual([]);
    const history = [...vouched(), ...runPassed('rr1', 1, at(55))];
    // The re-run tested r1's commit again: that commit lands.
    const before = { sha: BASE_SHA, tree: BASE_TREE };
    const merge = { ...mergeStep(1, 'rr1', 0, before, treeWith([1])), after: { sha: 'r1-c0', tree: treeWith([1]) } };
    expect(givenQueue(history).planned(facts())).toEqual([merge]);
  });

  it('when its re-run fails after a run stacked on it passed, then it is re-run again, up to MAX_VOUCHED_RETRIES', () => {
    expect(givenQueue(reRunsFailed(1)).planned(facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'NO_TEST_RESULTS', detail: detail(2, 5) }),
    ]);
  });

  it('when its third re-run fails too, then it is re-run a fourth time: a run stacked on it passed (D345)', () => {
    expect(givenQueue(reRunsFailed(3)).planned(facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'rr3', cause: 'NO_TEST_RESULTS', detail: detail(4, 5) }),
    ]);
  });

  it('when its fifth re-run fails too, then it is ejected, and once it is the runs behind that stacked it restart without it', () => {
    const history = reRunsFailed(5);
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'rr5')]);
    expect(givenQueue([...history, failed(1, 'rr5', at(60))]).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when its re-run fails while a run stacked on it is still testing, then it waits for that run before it is ejected', () => {
    expect(givenQueue([...heldUnderOthers(), ...runFailed('rr1', 1, at(50))]).planned(facts())).toEqual([]);
  });

  it('when a run stacked on it fails after another passed, then it keeps its place and the runs behind go on', () => {
    const history = [...vouched(), ...runFailed('r3', 3, at(51))];
    // PR 3's own failure is handled as any: no run stacked it, so it steps aside and is re-run.
    expect(givenQueue(history).planned(facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'r3', cause: 'NO_TEST_RESULTS', detail: detail(1, 1) }),
    ]);
  });

  it('when optimistic merging is on, then the first run stacked on it to pass clears it (D322)', () => {
    const history = [...heldUnderOthers([1, 2, 3], { canOptimisticallyMerge: true }), ...runPassed('r2', 2, at(50))];
    expect(givenQueue(history).planned(facts())).toEqual([rec({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r2' })]);
  });
});

describe('the re-run budget of a held failure of unknown kind is one rule for planner and decider (flakeRetriesFor)', () => {
  it('when a run stacked on it passed, then the decider accepts a second re-run', () => {
    const events = givenEngine(reRunsFailed(1))
      .when({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'NO_TEST_RESULTS', detail: detail(2, 5) })
      .events();
    expect(events.map((e) => e.type)).toEqual(['TestsRestarted', 'TestRunStarted', 'PrTestingStarted']);
  });

  it('when no run stacked on it passed, then the decider refuses a second re-run', () => {
    const history = [...heldUnderOthers(), ...runFailed('r2', 2, at(49)), ...runFailed('rr1', 1, at(50))];
    givenEngine(history)
      .when({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'NO_TEST_RESULTS', detail: detail(2, 3) })
      .thenThrows('INVALID_ARGUMENT');
  });

  it('when MAX_VOUCHED_RETRIES re-runs failed, then the decider refuses another', () => {
    givenEngine(reRunsFailed(5))
      .when({ type: 'RetryTestRun', testRunId: 'rr5', cause: 'NO_TEST_RESULTS', detail: detail(6, 5) })
      .thenThrows('INVALID_ARGUMENT');
  });
});

describe('a failure of unknown kind no run stacked on could judge (D336)', () => {
  const alone = (): QueueEvent[] => [
    ...queueWith({ flakeRetries: 1 }, [1]),
    ...runStarted('r1', 1),
    ...runFailed('r1', 1),
    ...reRun('rr1', 'r1', 1),
    ...runFailed('rr1', 1, at(50)),
  ];

  it('when the queue has never seen a re-run pass, then it is ejected after its re-run failed', () => {
    expect(givenQueue(alone()).planned(facts())).toEqual([blamed(1, 'rr1')]);
  });

  it('when the queue sees re-runs pass, then it gets one re-run more, beside the queue', () => {
    const flaky = { ...foldQueue(alone()), rerunPasses: { rate: 0.1, count: 60 } };
    expect(plan(flaky, NOW, facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'NO_TEST_RESULTS', detail: detail(2, 2) }),
    ]);
  });

  it('when re-runs of such failures pass or fail, then the estimate the rule reads follows them', () => {
    const history = alone();
    expect(foldQueue(history).rerunPasses).toEqual({ rate: 0, count: 1 });
    const passed = [...history.slice(0, -3), ...runPassed('rr1', 1, at(50))];
    expect(foldQueue(passed).rerunPasses).toEqual({ rate: 1, count: 1 });
  });

  it('when a new queue has seen one re-run pass, then its next such failure gets one re-run more (D341)', () => {
    // The first re-run counts whole: a moving average from 0 read 2% after it, and the next flake was ejected.
    const passedOnce = foldQueue([...alone().slice(0, -3), ...runPassed('rr1', 1, at(50))]).rerunPasses;
    const next = { ...foldQueue(alone()), rerunPasses: passedOnce };
    expect(plan(next, NOW, facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'rr1', cause: 'NO_TEST_RESULTS', detail: detail(2, 2) }),
    ]);
  });
});
