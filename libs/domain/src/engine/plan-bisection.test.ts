import type { QueueSettings } from '../config';
import type { QueueEvent } from '../events';
import { at } from '../testing/fixtures';
import {
  batchFailed,
  batchPassed,
  batchStarted,
  facts,
  failed,
  merged,
  overlapsOf,
  runFailed,
  runPassed,
  runStarted,
  statusReported,
  treeWith,
} from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { blamed, mergeStep, queueWith, rec, startOf } from './testing/plan-helpers';

const bisecting = (settings: Partial<QueueSettings> = {}): Partial<QueueSettings> => ({
  batch: true,
  batchingMinSize: 4,
  bisectionConcurrency: 2,
  ...settings,
});
const SKIP: Partial<QueueSettings> = { optimizationMode: 'bisection_skip_redundant_tests' };
const failedBatch = (settings: Partial<QueueSettings> = {}): QueueEvent[] => [
  ...queueWith(bisecting(settings), [1, 2, 3, 4]),
  ...batchStarted('b1', [1, 2, 3, 4]),
  ...batchFailed('b1', [1, 2, 3, 4]),
];
const halvesStarted = (settings: Partial<QueueSettings> = {}): QueueEvent[] => [
  ...failedBatch(settings),
  ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1', when: at(48) }),
  ...batchStarted('h2', [3, 4], [], { bisectionOf: 'b1', when: at(48) }),
];

describe('plan: bisection (reference trunk §4.2)', () => {
  it('when a batch failed, then it is split in two halves tested at once on its base, as bisection runs', () => {
    expect(givenQueue(failedBatch()).planned(facts())).toEqual([
      startOf([1, 2], [], { bisection: true }),
      startOf([3, 4], [], { bisection: true }),
    ]);
  });

  it('when the bisection budget holds one run, then the first half starts, and the failed half ahead goes on before the rest', () => {
    expect(givenQueue(failedBatch({ bisectionConcurrency: 1 })).planned(facts())).toEqual([startOf([1, 2], [], { bisection: true })]);
    const firstFailed = [
      ...failedBatch({ bisectionConcurrency: 1 }),
      ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1' }),
      ...batchFailed('h1', [1, 2]),
    ];
    expect(givenQueue(firstFailed).planned(facts())).toEqual([startOf([1], [], { bisection: true })]);
  });

  it('when the first half passed and went back to the queue, then the rest of the failed batch is split in its turn', () => {
    const cleared = [1, 2].map((prNumber): QueueEvent => ({
      type: 'TestsRestarted',
      data: { prNumber, reason: 'BISECTION_TEST_RUN_PASSED', at: at(47) },
    }));
    const history = [
      ...failedBatch({ bisectionConcurrency: 2, concurrency: 0 + 1 }),
      ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1' }),
      statusReported('h1', 'tests', 'success'),
      { type: 'TestRunSucceeded', data: { testRunId: 'h1', at: at(47) } } as QueueEvent,
      ...cleared,
    ];
    expect(givenQueue(history).planned(facts())).toEqual([startOf([3], [], { bisection: true }), startOf([4], [], { bisection: true })]);
  });

  it('when PRs ahead are being bisected, then nothing starts behind them: their good PRs will merge first', () => {
    const history = [
      ...queueWith(bisecting({ concurrency: 2, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 1 }), [1, 2, 3, 4]),
      ...batchStarted('b1', [1, 2]),
      ...batchFailed('b1', [1, 2]),
      ...batchStarted('h1', [1], [], { bisectionOf: 'b1' }),
      ...batchStarted('h2', [2], [], { bisectionOf: 'b1' }),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([]);
    const waitingToSplit = [
      ...queueWith(bisecting({ concurrency: 2, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 1, bisectionConcurrency: 1 }), [1, 2, 3, 4]),
      ...batchStarted('b1', [1, 2]),
      ...batchFailed('b1', [1, 2]),
      ...batchStarted('h1', [1], [], { bisectionOf: 'b1' }),
    ];
    expect(givenQueue(waitingToSplit).planned(facts())).toEqual([]);
  });

  it('when bisection runs are in flight, then they do not take the slots of concurrency: another lane starts', () => {
    const lane = (n: number, digest: string): QueueEvent => ({
      type: 'ImpactedTargetsSet',
      data: { prNumber: n, headSha: `sha-${n}`, digest, count: 1, all: false, at: at(0) },
    });
    const history = [
      ...halvesStarted({ mode: 'parallel', concurrency: 1, batchingMaxWaitTimeMinutes: 1 }),
      ...[1, 2, 3, 4].map((n) => lane(n, 'a')),
      lane(5, 'b'),
      queueWith({}, [5])[1] as QueueEvent,
    ];
    expect(givenQueue(history).planned(facts({ overlaps: overlapsOf({ a: ['//a'], b: ['//b'] }) }))).toEqual([startOf([5])]);
  });

  it('when a half of two fails, then it is split again until the PRs are alone', () => {
    const history = [...halvesStarted({ bisectionConcurrency: 3 }), ...batchFailed('h1', [1, 2])];
    expect(givenQueue(history).planned(facts())).toEqual([startOf([1], [], { bisection: true }), startOf([2], [], { bisection: true })]);
  });

  it('when a PR alone in a bisection run fails, then it is the culprit and fails', () => {
    const history = [
      ...halvesStarted(),
      ...batchFailed('h1', [1, 2]),
      ...batchStarted('q1', [1], [], { bisectionOf: 'h1', when: at(50) }),
      ...runFailed('q1', 1, at(51)),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'q1')]);
  });

  it('when the failed batch stacked a PR that is itself pending failure, then it is not split: its failure is likely that one', () => {
    const history = [
      ...queueWith(bisecting({ concurrency: 2, batchingMinSize: 2 }), [1, 2, 3]),
      ...runStarted('r1', 1),
      ...batchStarted('b2', [2, 3], [1]),
      ...runFailed('r1', 1),
      ...batchFailed('b2', [2, 3]),
      { type: 'QueueConfigUpdated', data: { changes: { pendingFailureDepth: 1 }, at: at(48) } } as QueueEvent,
    ];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'r1')]);
  });

  it('when a half passed, then its PRs go back to the queue in their place and test alone', () => {
    const history = [
      ...halvesStarted({ batchingMaxWaitTimeMinutes: 1 }),
      ...batchPassed('h1', [1, 2]).map((e) =>
        e.type === 'PrTestsPassed'
          ? ({
              type: 'TestsRestarted',
              data: { prNumber: e.data.prNumber, reason: 'BISECTION_TEST_RUN_PASSED', at: e.data.at },
            } as QueueEvent)
          : e,
      ),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([startOf([1])]);
  });

  it('when the budget is free but a dependency of the group is still a suspect, then the group waits', () => {
    const history = [
      ...queueWith(bisecting({ concurrency: 2, batchingMinSize: 2 }), [1, 2, 3, 4]),
      ...batchStarted('b1', [1, 2]),
      ...batchStarted('b2', [3, 4], [1, 2]),
      ...batchFailed('b1', [1, 2]),
      ...batchFailed('b2', [3, 4]),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([startOf([1], [], { bisection: true }), startOf([2], [], { bisection: true })]);
  });
});

describe('plan: bisection_skip_redundant_tests', () => {
  it('when one half passed while the other still runs, then the other holds the culprit and its run is skipped', () => {
    const history = [...halvesStarted(SKIP), ...batchPassed('h1', [1, 2], 'PASSED_BY_OPTIMIZATION')];
    expect(givenQueue(history).planned(facts())).toEqual([rec({ type: 'FailByOptimization', testRunId: 'h2', provenBy: 'h1' })]);
  });

  it('when the half proven failing holds two PRs, then it is split at once, its first quarter tested first', () => {
    const inferred: QueueEvent[] = [
      { type: 'TestRunCancelled', data: { testRunId: 'h2', reason: 'BISECTION_SKIP_REDUNDANT', at: at(48) } },
      ...[3, 4].map((prNumber): QueueEvent => ({
        type: 'PrPendingFailure',
        data: { prNumber, testRunId: 'h2', failedContexts: [], at: at(48) },
      })),
    ];
    const history = [...halvesStarted(SKIP), ...batchPassed('h1', [1, 2], 'PASSED_BY_OPTIMIZATION'), ...inferred];
    const state = givenQueue(history);
    expect(state.planned(facts())).toEqual([mergeStep(1, 'h1', 0, { sha: 'main-0', tree: 'T' }, treeWith([1]))]);
    const mergedAhead = [...history, merged(1, 'h1', at(49), 'main-0'), merged(2, 'h1', at(49), 'merge-1')];
    expect(givenQueue(mergedAhead).planned(facts({ sha: 'merge-2', tree: treeWith([1, 2]) }))).toEqual([
      startOf([3], [], { bisection: true, baseSha: 'merge-2', baseTree: treeWith([1, 2]) }),
    ]);
  });

  it('when a batch failed, then only its first half is tested, and the second waits for that verdict', () => {
    expect(givenQueue(failedBatch(SKIP)).planned(facts())).toEqual([startOf([1, 2], [], { bisection: true })]);
    const firstTesting = [...failedBatch(SKIP), ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1', when: at(48) })];
    expect(
      givenQueue(firstTesting)
        .planned(facts())
        .filter((a) => a.kind === 'startRun'),
    ).toEqual([]);
  });

  it('when the first half failed, then the second half is tested whole beside the first half’s split', () => {
    const history = [
      ...failedBatch(SKIP),
      ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1', when: at(48) }),
      ...batchFailed('h1', [1, 2]),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([startOf([1], [], { bisection: true }), startOf([3, 4], [], { bisection: true })]);
  });

  it('when the last half of one PR is proven failing, then it fails by optimization without its run', () => {
    const history: QueueEvent[] = [
      ...queueWith(bisecting({ ...SKIP, batchingMinSize: 2 }), [1, 2]),
      ...batchStarted('b1', [1, 2]),
      ...batchFailed('b1', [1, 2]),
      ...batchStarted('h1', [1], [], { bisectionOf: 'b1' }),
      ...batchStarted('h2', [2], [], { bisectionOf: 'b1' }),
      ...batchPassed('h1', [1], 'PASSED_BY_OPTIMIZATION'),
      { type: 'TestRunCancelled', data: { testRunId: 'h2', reason: 'BISECTION_SKIP_REDUNDANT', at: at(48) } },
      { type: 'PrPendingFailure', data: { prNumber: 2, testRunId: 'h2', failedContexts: [], at: at(48) } },
      merged(1, 'h1', at(49), 'main-0'),
    ];
    expect(givenQueue(history).planned(facts({ sha: 'merge-1', tree: treeWith([1]) }))).toEqual([
      rec({
        type: 'FailPr',
        prNumber: 2,
        reason: 'TEST_RUN_FAILED_BY_OPTIMIZATION',
        detail: 'a batch holding this PR failed and the other half of its bisection passed, so this PR broke it; its own run was skipped',
        testRunId: 'h2',
      }),
    ]);
  });

  it('when the budget ran one half and it passed, then the untested half is proven failing: split at once, or failed when alone', () => {
    const oneAtATime = { ...SKIP, bisectionConcurrency: 1 };
    const history = [
      ...failedBatch(oneAtATime),
      ...batchStarted('h1', [1, 2], [], { bisectionOf: 'b1' }),
      ...batchPassed('h1', [1, 2], 'PASSED_BY_OPTIMIZATION'),
      merged(1, 'h1', at(49), 'main-0'),
      merged(2, 'h1', at(49), 'merge-1'),
    ];
    const onTwo = facts({ sha: 'merge-2', tree: treeWith([1, 2]) });
    expect(givenQueue(history).planned(onTwo)).toEqual([
      startOf([3], [], { bisection: true, baseSha: 'merge-2', baseTree: treeWith([1, 2]) }),
    ]);
    const third = [
      ...history,
      ...batchStarted('q3', [3], [], { bisectionOf: 'b1', baseSha: 'merge-2', baseTree: treeWith([1, 2]), when: at(50) }),
      ...batchPassed('q3', [3], 'PASSED_BY_OPTIMIZATION', at(51)),
    ];
    // The culprit is failed as soon as the rest is cleared: it does not wait for the cleared PRs to merge.
    const fourthBlamed = rec({
      type: 'FailPr',
      prNumber: 4,
      reason: 'TEST_RUN_FAILED_BY_OPTIMIZATION',
      detail: 'a batch holding this PR failed and the other half of its bisection passed, so this PR broke it; its own run was skipped',
      testRunId: 'b1',
    });
    expect(givenQueue(third).planned(onTwo)).toEqual([fourthBlamed]);
    expect(givenQueue([...third, failed(4, 'b1', at(52))]).planned(onTwo)).toEqual([
      mergeStep(3, 'q3', 0, { sha: 'merge-2', tree: treeWith([1, 2]) }, treeWith([1, 2, 3])),
    ]);
    const fourthAlone = [...third, merged(3, 'q3', at(52), 'merge-2')];
    expect(givenQueue(fourthAlone).planned(facts({ sha: 'merge-3', tree: treeWith([1, 2, 3]) }))).toEqual([fourthBlamed]);
  });

  it('when both halves passed, then the failure was not reproduced: the first half stands and the second, tested without it, restarts behind it', () => {
    const history = [
      ...halvesStarted(SKIP),
      ...batchPassed('h1', [1, 2], 'PASSED_BY_OPTIMIZATION'),
      ...batchPassed('h2', [3, 4], 'PASSED_BY_OPTIMIZATION'),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
      rec({ type: 'RestartTests', prNumber: 4, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when the optimization is off, then a half still running is left to finish', () => {
    const planned = givenQueue([...halvesStarted(), statusReported('h2', 'lint', 'pending'), ...batchPassed('h1', [1, 2])]).planned(
      facts(),
    );
    expect(planned.some((a) => a.kind === 'record' && a.command.type === 'FailByOptimization')).toBe(false);
  });

  it('when an anti-flake successor stacked the failed batch and still runs, then bisection waits for it', () => {
    const history = [
      ...queueWith(bisecting({ concurrency: 2, batchingMinSize: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true }), [1, 2, 3, 4]),
      ...batchStarted('b1', [1, 2]),
      ...batchStarted('b2', [3, 4], [1, 2]),
      ...batchFailed('b1', [1, 2]),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([]);
    expect(givenQueue([...history, ...batchPassed('b2', [3, 4])]).planned(facts())).toEqual([
      rec({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'b2' }),
      rec({ type: 'PassBySuccessor', prNumber: 2, testRunId: 'b2' }),
    ]);
  });
});

describe('plan: a passing bisection half without the optimization', () => {
  it('when a PR cleared by its bisection run is back in the queue, then it is retested alone, not batched again', () => {
    const history: QueueEvent[] = [
      ...queueWith(bisecting({ batchingMinSize: 2, concurrency: 2, batchingMaxWaitTimeMinutes: 1 }), [1, 2, 3]),
      ...batchStarted('b1', [1, 2]),
      ...batchFailed('b1', [1, 2]),
      ...batchStarted('h1', [1], [], { bisectionOf: 'b1' }),
      ...batchStarted('h2', [2], [], { bisectionOf: 'b1' }),
      ...runFailed('h2', 2),
      ...runPassed('h1', 1).filter((e) => e.type !== 'PrTestsPassed'),
      { type: 'TestsRestarted', data: { prNumber: 1, reason: 'BISECTION_TEST_RUN_PASSED', at: at(47) } },
    ];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(2, 'h2')]);
    expect(givenQueue([...history, failed(2, 'h2')]).planned(facts())).toEqual([startOf([1]), startOf([3], [1])]);
  });
});
