import type { QueueSettings } from '../config';
import type { QueueEvent, TargetsRef } from '../events';
import { at, headShaOf, prSubmitted, queueCreated } from '../testing/fixtures';
import {
  BASE_SHA,
  facts,
  failed,
  merged,
  overlapsOf,
  restarted,
  runFailed,
  runPassed,
  runStarted,
  treeWith,
} from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { mergeStep, rec, startOf } from './testing/plan-helpers';

/** Target lists by digest: two disjoint areas, one spanning both, and a third area. */
const LISTS = { fe: ['web/app', 'web/lib'], be: ['api/server', 'api/db'], both: ['web/lib', 'api/db'], docs: ['docs/site'] };
const overlaps = overlapsOf(LISTS);

type Targets = keyof typeof LISTS | 'ALL' | 'NONE';
const refOf = (t: Targets): TargetsRef =>
  t === 'ALL'
    ? { digest: 'all', count: 0, all: true }
    : t === 'NONE'
      ? { digest: 'none', count: 0, all: false }
      : { digest: t, count: LISTS[t].length, all: false };

/** A parallel queue whose PRs uploaded the given targets, submitted in this order. */
const parallelQueue = (prs: [number, Targets][], settings: Partial<QueueSettings> = {}): QueueEvent[] => [
  queueCreated({ settings: { mode: 'parallel', concurrency: 8, ...settings } }),
  ...prs.flatMap(([n, t]): QueueEvent[] => [
    { type: 'ImpactedTargetsSet', data: { prNumber: n, headSha: headShaOf(n), ...refOf(t), at: at(0) } },
    prSubmitted(n, {
      readiness: { requiresImpactedTargets: true, hasImpactedTargets: true, doesBaseBranchMatch: true, mergeability: 'mergeable' },
    }),
  ]),
];
const withOverlaps = (o: Parameters<typeof facts>[0] = {}) => facts({ ...o, overlaps });

describe('plan: parallel mode lanes (reference trunk §5.1)', () => {
  it('when PRs touch two disjoint areas, then each is tested on top of the earlier PRs of its own area only', () => {
    const history = parallelQueue([
      [1, 'fe'],
      [2, 'be'],
      [3, 'fe'],
      [4, 'be'],
    ]);
    expect(givenQueue(history).planned(withOverlaps())).toEqual([startOf(1), startOf(2), startOf(3, [1]), startOf(4, [2])]);
  });

  it('when a PR spans both areas, then it is tested on both and the later PRs of either area on it', () => {
    const history = parallelQueue([
      [1, 'fe'],
      [2, 'be'],
      [3, 'both'],
      [4, 'docs'],
      [5, 'be'],
    ]);
    expect(givenQueue(history).planned(withOverlaps())).toEqual([
      startOf(1),
      startOf(2),
      startOf(3, [1, 2]),
      startOf(4),
      startOf(5, [1, 2, 3]),
    ]);
  });

  it('when a PR impacts ALL, then it depends on everything ahead and everything behind depends on it', () => {
    const history = parallelQueue([
      [1, 'fe'],
      [2, 'be'],
      [3, 'ALL'],
      [4, 'docs'],
    ]);
    expect(givenQueue(history).planned(withOverlaps())).toEqual([startOf(1), startOf(2), startOf(3, [1, 2]), startOf(4, [1, 2, 3])]);
  });

  it('when a PR impacts nothing, then it depends on nothing and nothing depends on it, except ALL', () => {
    const history = parallelQueue([
      [1, 'fe'],
      [2, 'NONE'],
      [3, 'fe'],
      [4, 'ALL'],
    ]);
    expect(givenQueue(history).planned(withOverlaps())).toEqual([startOf(1), startOf(2), startOf(3, [1]), startOf(4, [1, 2, 3])]);
  });

  it('when the engine could not read the overlaps, then every PR counts as impacting everything: the queue is serial', () => {
    const history = parallelQueue([
      [1, 'fe'],
      [2, 'be'],
      [3, 'fe'],
    ]);
    expect(givenQueue(history).planned(facts())).toEqual([startOf(1), startOf(2, [1]), startOf(3, [1, 2])]);
  });

  it('when fewer slots are free than PRs that may start, then the shallowest runs start first, whatever the queue order (D346)', () => {
    const history = parallelQueue(
      [
        [1, 'fe'],
        [2, 'fe'],
        [3, 'be'],
      ],
      { concurrency: 2 },
    );
    // #2 would stack #1; #3 stacks nothing, so its run is the likelier to be of use.
    expect(givenQueue(history).planned(withOverlaps())).toEqual([startOf(1), startOf(3)]);
  });

  it('when the shallower PR has a lower priority, then the deeper one of a higher priority starts first (D346)', () => {
    const history = [
      ...parallelQueue(
        [
          [1, 'fe'],
          [2, 'fe'],
          [3, 'be'],
        ],
        { concurrency: 2 },
      ),
      ...[1, 2].map((n): QueueEvent => ({
        type: 'PrPriorityChanged',
        data: { prNumber: n, priorityValue: 10, priorityName: 'high', noBatch: false, at: at(6) },
      })),
    ];
    expect(givenQueue(history).planned(withOverlaps())).toEqual([startOf(1), startOf(2, [1])]);
  });

  it('when a batch in one lane waits to fill, then the PRs depending on it wait, while a PR of another lane starts', () => {
    const noBatch = (n: number): QueueEvent => ({
      type: 'PrPriorityChanged',
      data: { prNumber: n, priorityValue: 100, priorityName: 'medium', noBatch: true, at: at(6) },
    });
    const history = [
      ...parallelQueue(
        [
          [1, 'fe'],
          [2, 'be'],
          [3, 'fe'],
          [4, 'docs'],
          [5, 'fe'],
        ],
        { batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 60 },
      ),
      ...[1, 4, 5].map(noBatch),
    ];
    expect(givenQueue(history).planned(withOverlaps(), at(10))).toEqual([startOf(1), startOf(4)]);
  });
});

describe('plan: parallel mode failures and merges', () => {
  // A failure steps aside at once here (D204), as with unknownFailuresHoldPlace off.
  const lanes = (): QueueEvent[] => [
    ...parallelQueue(
      [
        [1, 'fe'],
        [2, 'be'],
        [3, 'fe'],
        [4, 'be'],
      ],
      { unknownFailuresHoldPlace: false },
    ),
    ...runStarted('r1', 1),
    ...runStarted('r2', 2),
    ...runStarted('r3', 3, [1]),
    ...runStarted('r4', 4, [2]),
  ];

  it('when a PR fails with a re-run left, then only the run of its lane that stacked it restarts at once, before the re-run', () => {
    const history = [...lanes(), ...runFailed('r1', 1)];
    expect(givenQueue(history).planned(withOverlaps())).toEqual([
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when a PR fails and is blamed, then only the runs depending on it restart', () => {
    const history = [...lanes(), ...runFailed('r1', 1), failed(1, 'r1')];
    expect(givenQueue(history).planned(withOverlaps())).toEqual([
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when the head of one lane passed while the other lane still tests, then it merges', () => {
    const history = [...lanes(), ...runPassed('r2', 2)];
    expect(givenQueue(history).planned(withOverlaps())).toEqual([mergeStep(2, 'r2', 0, { sha: BASE_SHA, tree: 'T' }, treeWith([2]))]);
  });

  it('when another lane merged since a run started, then the run stands and its PR merges onto the moved target', () => {
    const history = [...lanes(), ...runPassed('r2', 2), merged(2, 'r2', at(48), BASE_SHA), ...runPassed('r1', 1)];
    expect(givenQueue(history).planned(withOverlaps({ sha: 'merge-2', tree: treeWith([2]) }))).toEqual([
      mergeStep(1, 'r1', 0, { sha: BASE_SHA, tree: 'T' }, treeWith([1]), 'merge-2'),
    ]);
  });

  it('when a PR spanning two lanes is stacked on both, then the lane that merges first does not make its run stale', () => {
    const history = [
      ...parallelQueue([
        [1, 'fe'],
        [2, 'be'],
        [3, 'both'],
      ]),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2),
      ...runStarted('r3', 3, [1, 2]),
      ...runPassed('r2', 2),
      merged(2, 'r2', at(48), BASE_SHA),
      ...runPassed('r3', 3),
    ];
    expect(givenQueue(history).planned(withOverlaps({ sha: 'merge-2', tree: treeWith([2]) }))).toEqual([]);
    const oneMerged = [...history, ...runPassed('r1', 1), merged(1, 'r1', at(50), 'merge-2')];
    expect(givenQueue(oneMerged).planned(withOverlaps({ sha: 'merge-1', tree: treeWith([2, 1]) }))).toEqual([
      mergeStep(3, 'r3', 2, { sha: 'r3-c1', tree: treeWith([1, 2]) }, treeWith([1, 2, 3]), 'merge-1'),
    ]);
  });

  it('when someone else pushed to the target, then every run restarts with MANUAL_PUSH_TO_TARGET_BRANCH', () => {
    const history = [...lanes(), ...runPassed('r2', 2), merged(2, 'r2', at(48), BASE_SHA)];
    expect(givenQueue(history).planned(withOverlaps({ sha: 'pushed', tree: 'T+2+hotfix' }))).toEqual(
      [1, 3, 4].map((prNumber) => rec({ type: 'RestartTests', prNumber, reason: 'MANUAL_PUSH_TO_TARGET_BRANCH' })),
    );
  });

  it('when a PR in another lane is pending failure, then PRs of this lane are not held behind it', () => {
    const history = [
      ...lanes(),
      // One failure read as final: re-runs beside the queue would restart PR 4 first (plan-retries-beside.test.ts).
      { type: 'QueueConfigUpdated', data: { changes: { pendingFailureDepth: 1, flakeRetries: 0 }, at: at(46) } } as QueueEvent,
      ...runFailed('r2', 2),
      ...runPassed('r1', 1),
    ];
    expect(givenQueue(history).planned(withOverlaps())).toEqual([mergeStep(1, 'r1', 0, { sha: BASE_SHA, tree: 'T' }, treeWith([1]))]);
  });

  it('when a PR behind passed before the one it depends on, then it waits for it', () => {
    const history = [...lanes(), ...runPassed('r3', 3)];
    expect(givenQueue(history).planned(withOverlaps())).toEqual([]);
  });

  it('when a PR ahead it depends on was suspect at its start and is cleared later, then its run restarts to stack it', () => {
    const history = [
      ...parallelQueue(
        [
          [1, 'fe'],
          [2, 'fe'],
        ],
        { pendingFailureDepth: 1 },
      ),
      ...runStarted('r1', 1),
      ...runFailed('r1', 1),
      ...runStarted('r2', 2),
      restarted(1, at(48)),
    ];
    expect(givenQueue(history).planned(withOverlaps())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });
});
