import type { QueueSettings } from '../config';
import type { QueueEvent } from '../events';
import { at } from '../testing/fixtures';
import { NOW } from '../testing/decider-spec';
import { facts, merged, prOneReRun, runFailed, runPassed, runStarted } from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { blamed, mergeStep, queueWith, rec, startOf } from './testing/plan-helpers';

/**
 * Re-runs beside the queue (docs/engine.md, Flakes): without anti-flake witnesses, a failure is taken
 * as real for the PRs behind it, which restart at once without the failing PR, while its re-run goes
 * on in a slot of its own. Its pass brings it back; a second failure ejects it. These queues turn
 * `unknownFailuresHoldPlace` off: with it on (opt-in, D322) such a failure first holds its place.
 */
const NO_RESULTS = 'required check(s) tests failed and no test results name a failing test; re-run 1 of 1 on the same commit';

/** PRs 1, 2, 3 in flight, stacked on each other; PR 1's run r1 failed. */
const failedUnderOthers = (): QueueEvent[] => [
  ...queueWith({ flakeRetries: 1, unknownFailuresHoldPlace: false, concurrency: 3 }, [1, 2, 3]),
  ...runStarted('r1', 1),
  ...runStarted('r2', 2, [1]),
  ...runStarted('r3', 3, [1, 2]),
  ...runFailed('r1', 1),
];

const restartedWithoutOne = (): QueueEvent[] => [
  { type: 'TestRunCancelled', data: { testRunId: 'r2', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(48) } },
  { type: 'TestsRestarted', data: { prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(48) } },
  { type: 'TestRunCancelled', data: { testRunId: 'r3', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(48) } },
  { type: 'TestsRestarted', data: { prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: at(48) } },
];

/** PR 1's run r1 re-run as `rr1` on the same commit. */
const reRun = (): QueueEvent[] =>
  prOneReRun({ testRunId: 'rr1', of: 'r1', attempt: 1, cause: 'NO_TEST_RESULTS', detail: NO_RESULTS, when: at(49) });

const reRunPassed = (): QueueEvent[] => [
  { type: 'TestRunStatusReported', data: { testRunId: 'rr1', context: 'tests', state: 'success', at: at(55) } },
  { type: 'TestRunSucceeded', data: { testRunId: 'rr1', at: at(55) } },
  { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'rr1', reason: 'FLAKE_RETRIED', at: at(55) } },
];

/** After the re-run started, PR 2 ran alone on main and passed; PR 3 runs on it. */
const othersWentOn = (): QueueEvent[] => [
  ...failedUnderOthers(),
  ...restartedWithoutOne(),
  ...reRun(),
  ...runStarted('s2', 2, [], { when: at(50) }),
  ...runStarted('s3', 3, [2], { when: at(50) }),
  ...runPassed('s2', 2, at(52)),
];

/** Four PRs at concurrency 3: PR 1's run failed under 2 and 3, which restarted, and its re-run started. */
const reRunUnderFour = (settings: Partial<QueueSettings>): QueueEvent[] => [
  ...queueWith({ flakeRetries: 1, unknownFailuresHoldPlace: false, concurrency: 3, ...settings }, [1, 2, 3, 4]),
  ...runStarted('r1', 1),
  ...runStarted('r2', 2, [1]),
  ...runStarted('r3', 3, [1, 2]),
  ...runFailed('r1', 1),
  ...restartedWithoutOne(),
  ...reRun(),
];

describe('re-runs beside the queue (flakeRetries, no anti-flake witnesses)', () => {
  it('when a PR fails under others, then the runs stacked on it restart at once instead of waiting for its re-run', () => {
    expect(givenQueue(failedUnderOthers()).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when the runs behind restarted, then the failed run is re-run in a free slot and the PRs behind start without it', () => {
    const restarted = [...failedUnderOthers(), ...restartedWithoutOne()];
    expect(givenQueue(restarted).planned(facts())).toEqual([
      rec({ type: 'RetryTestRun', testRunId: 'r1', cause: 'NO_TEST_RESULTS', detail: NO_RESULTS }),
    ]);
    expect(givenQueue([...restarted, ...reRun()]).planned(facts())).toEqual([startOf(2), startOf(3, [2])]);
  });

  it('when a PR behind passed without it while the re-run goes on, then that PR merges past it', () => {
    expect(givenQueue(othersWentOn()).planned(facts())).toEqual([mergeStep(2, 's2', 0, { sha: 'main-0', tree: 'T' }, 'T+2')]);
  });

  it('when the re-run passes after a PR behind merged past it, then it comes back behind the PRs in flight and nobody restarts', () => {
    const history = [...othersWentOn(), merged(2, 's2', at(53), 'main-0'), ...reRunPassed()];
    const target = facts({ sha: 'merge-2', tree: 'T+2' });
    expect(givenQueue(history).planned(target)).toEqual([rec({ type: 'RestartTests', prNumber: 1, reason: 'FLAKE_RETRY_PASSED' })]);
    const back: QueueEvent = { type: 'TestsRestarted', data: { prNumber: 1, reason: 'FLAKE_RETRY_PASSED', at: NOW } };
    expect(givenQueue([...history, back]).planned(target)).toEqual([startOf(1, [3], { baseSha: 'merge-2', baseTree: 'T+2' })]);
  });

  it('when the re-run passes while the PRs behind still run without it, then it re-enters behind them rather than restart them', () => {
    const history = [...othersWentOn().slice(0, -3), ...reRunPassed()];
    expect(givenQueue(history).planned(facts())).toEqual([rec({ type: 'RestartTests', prNumber: 1, reason: 'FLAKE_RETRY_PASSED' })]);
  });

  it('when the re-run passes and no PR behind left it out, then it keeps its place and merges from the re-run', () => {
    const history = [
      ...queueWith({ flakeRetries: 1, unknownFailuresHoldPlace: false }, [1]),
      ...runStarted('r1', 1),
      ...runFailed('r1', 1),
      ...reRun(),
      ...reRunPassed(),
    ];
    const merge = mergeStep(1, 'rr1', 0, { sha: 'main-0', tree: 'T' }, 'T+1');
    expect(givenQueue(history).planned(facts())).toEqual([{ ...merge, after: { sha: 'r1-c0', tree: 'T+1' } }]);
  });

  it('when the re-run fails too, then the PR is ejected and the PRs behind it go on', () => {
    const history = [...othersWentOn(), ...runFailed('rr1', 1, at(56))];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'rr1')]);
  });

  it('when a lone failure is re-run, then the re-run goes beside the queue and the PRs behind take every slot of concurrency', () => {
    expect(givenQueue(reRunUnderFour({})).planned(facts())).toEqual([startOf(2), startOf(3, [2]), startOf(4, [2, 3])]);
  });

  it('when flakeRetryConcurrency is 0, then the re-run takes a slot of the queue and one PR behind waits', () => {
    expect(givenQueue(reRunUnderFour({ flakeRetryConcurrency: 0 })).planned(facts())).toEqual([startOf(2), startOf(3, [2])]);
  });

  it('when the beside budget is taken and the queue is full, then a second failure waits for a slot before its re-run', () => {
    const history = [
      ...queueWith({ flakeRetries: 1, unknownFailuresHoldPlace: false, concurrency: 2 }, [1, 2, 3, 4]),
      ...runStarted('r1', 1),
      ...runFailed('r1', 1),
      ...reRun(),
      ...runStarted('s2', 2, [], { when: at(50) }),
      ...runStarted('s3', 3, [2], { when: at(50) }),
      ...runFailed('s2', 2, at(52)),
    ];
    // PR 3 restarts without PR 2; PR 2's re-run would be a second one beside the queue: it waits.
    expect(givenQueue(history).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when anti-flake witnesses are on, then the runs stacked on the failed PR go on as its witnesses', () => {
    const history = [
      ...queueWith(
        { flakeRetries: 1, unknownFailuresHoldPlace: false, concurrency: 3, canOptimisticallyMerge: true, pendingFailureDepth: 1 },
        [1, 2],
      ),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      ...runFailed('r1', 1),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([]);
  });
});
