import type { QueueEvent } from '../events';
import { at, prCancelled, prSubmitted, queueConfigUpdated, queueCreated, queueStateChanged, readiness } from '../testing/fixtures';
import type { QueueSettings } from '../config';
import {
  BASE_SHA,
  BASE_TREE,
  facts,
  failed,
  merged,
  openPull,
  passedBy,
  restarted,
  runFailed,
  runPassed,
  runStarted,
  statusReported,
  treeWith,
} from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { blamed, mergeStep, minutesAfter, queueWith, rec, startOf } from './testing/plan-helpers';
import { directMergeCandidate } from './phases/merges';

describe('plan: starting runs', () => {
  it('when the queue is empty, then there is nothing to do', () => {
    expect(givenQueue([queueCreated()]).planned(facts())).toEqual([]);
  });

  it('when the queue does not exist, then there is nothing to do', () => {
    expect(givenQueue([]).planned(facts())).toEqual([]);
  });

  it.each([
    [1, [startOf(1)]],
    [2, [startOf(1), startOf(2, [1])]],
    [3, [startOf(1), startOf(2, [1]), startOf(3, [1, 2])]],
    [8, [startOf(1), startOf(2, [1]), startOf(3, [1, 2])]],
  ])('when %i slots are free, then that many PRs start, each stacked on every PR ahead', (concurrency, expected) => {
    expect(givenQueue(queueWith({ concurrency })).planned(facts())).toEqual(expected);
  });

  it('when a run is in flight and the concurrency is used up, then nothing starts', () => {
    expect(givenQueue([...queueWith(), ...runStarted('r1', 1)]).planned(facts())).toEqual([]);
  });

  it('when a PR ahead is testing and a slot is free, then the next starts stacked on it', () => {
    expect(givenQueue([...queueWith({ concurrency: 2 }), ...runStarted('r1', 1)]).planned(facts())).toEqual([startOf(2, [1])]);
  });

  it('when a PR ahead is pending failure, then the next starts without it', () => {
    const history = [
      ...queueWith({ concurrency: 2 }),
      ...runStarted('r1', 1),
      ...runFailed('r1', 1),
      queueConfigUpdated({ pendingFailureDepth: 0 }),
    ];
    const withAhead = [
      // One failure read as final: a re-run beside the queue would be asked first (plan-retries-beside.test.ts).
      queueCreated({ settings: { concurrency: 2, flakeRetries: 0 } }),
      prSubmitted(9),
      prSubmitted(1),
      prSubmitted(2),
      ...runStarted('r9', 9),
      ...runStarted('r1', 1, [9]),
      ...runFailed('r1', 1),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'r1')]);
    expect(givenQueue([...withAhead, queueConfigUpdated({ concurrency: 3 })]).planned(facts())).toEqual([startOf(2, [9])]);
  });

  it('when the queue is paused, then nothing starts', () => {
    expect(givenQueue([...queueWith(), queueStateChanged('running', 'paused')]).planned(facts())).toEqual([]);
  });

  it('when the queue is draining, then the PRs already queued still start', () => {
    expect(givenQueue([...queueWith(), queueStateChanged('running', 'draining')]).planned(facts())).toEqual([startOf(1)]);
  });

  it('when the target branch does not exist, then nothing starts', () => {
    expect(givenQueue(queueWith()).planned({ ...facts(), target: null })).toEqual([]);
  });

  it('when a PR is not ready, then it takes no place and the next starts', () => {
    const history = [
      queueCreated(),
      prSubmitted(1, { state: 'not_ready', readiness: readiness({ mergeability: 'not_mergeable' }) }),
      prSubmitted(2),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([startOf(2)]);
  });

  it('when a higher-priority PR arrives after one started, then it goes before the waiting ones but not before the started one', () => {
    const history = [
      ...queueWith({ concurrency: 2 }, [1, 2]),
      ...runStarted('r1', 1),
      prSubmitted(3, { priorityValue: 10, priorityName: 'high', at: at(50) }),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([startOf(3, [1])]);
  });

  it('when a PR restarted by request, then it starts again in its place and the run behind it keeps going', () => {
    const history = [...queueWith({ concurrency: 2 }), ...runStarted('r1', 1), ...runStarted('r2', 2, [1]), restarted(1)];
    expect(givenQueue(history).planned(facts())).toEqual([rec({ type: 'CancelTestRun', testRunId: 'r1', reason: 'TESTS_RESTARTED' })]);
    const cancelled: QueueEvent = { type: 'TestRunCancelled', data: { testRunId: 'r1', reason: 'TESTS_RESTARTED', at: at(49) } };
    expect(givenQueue([...history, cancelled]).planned(facts())).toEqual([startOf(1)]);
  });
});

describe('plan: statuses and outcomes', () => {
  const running = [...queueWith(), ...runStarted('r1', 1)];

  it('when CI reports a status the run has not seen, then it is recorded', () => {
    expect(givenQueue(running).planned(facts({ statuses: [['r1-c0', [{ context: 'tests', state: 'pending', url: 'u' }]]] }))).toEqual([
      rec({ type: 'ReportTestStatus', testRunId: 'r1', context: 'tests', state: 'pending', url: 'u' }),
    ]);
  });

  it('when CI reports what was recorded, or a pending after a result, then nothing is recorded', () => {
    const history = [...running, statusReported('r1', 'tests', 'success'), statusReported('r1', 'lint', 'pending')];
    const reported = facts({
      statuses: [
        [
          'r1-c0',
          [
            { context: 'tests', state: 'pending' },
            { context: 'lint', state: 'pending' },
          ],
        ],
      ],
    });
    expect(givenQueue(history).planned(reported)).toEqual([rec({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed' })]);
  });

  it.each([
    ['every required status succeeded', [['tests', 'success']], { outcome: 'passed' }],
    ['a required status failed', [['tests', 'failure']], { outcome: 'failed', failedContexts: ['tests'] }],
    ['a required status errored', [['tests', 'error']], { outcome: 'failed', failedContexts: ['tests'] }],
  ] as const)('when %s, then the run completes so', (_what, seen, outcome) => {
    const history = [...running, ...seen.map(([c, st]) => statusReported('r1', c, st))];
    expect(givenQueue(history).planned(facts())).toEqual([rec({ type: 'CompleteTestRun', testRunId: 'r1', ...outcome } as never)]);
  });

  it('when only a status that is not required failed, then the run waits', () => {
    expect(givenQueue([...running, statusReported('r1', 'lint', 'failure')]).planned(facts())).toEqual([]);
  });

  it.each([
    [59, []],
    [60, [rec({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'timed_out' })]],
  ])('when the run has been testing %i minutes of a 60-minute timeout, then %j', (minutes, expected) => {
    const history = [...queueWith({ testingTimeoutMinutes: 60 }), ...runStarted('r1', 1)];
    expect(givenQueue(history).planned(facts(), minutesAfter(minutes))).toEqual(expected);
  });

  it('when the PR of a running run was cancelled, then the run is cancelled', () => {
    expect(givenQueue([...running, prCancelled(1)]).planned(facts())).toEqual([
      rec({ type: 'CancelTestRun', testRunId: 'r1', reason: 'PR_CANCELLED' }),
    ]);
  });
});

describe('plan: merging', () => {
  it('when the head passed and the target is where its run started, then it merges from its tested commit', () => {
    const history = [...queueWith(), ...runStarted('r1', 1), ...runPassed('r1', 1)];
    expect(givenQueue(history).planned(facts())).toEqual([mergeStep(1, 'r1', 0, { sha: BASE_SHA, tree: BASE_TREE }, treeWith([1]))]);
  });

  it('when the PR behind passed first, then it waits for the head', () => {
    const history = [...queueWith({ concurrency: 2 }, [1, 2]), ...runStarted('r1', 1), ...runStarted('r2', 2, [1]), ...runPassed('r2', 2)];
    expect(givenQueue(history).planned(facts())).toEqual([]);
  });

  it('when the head merged from its own run, then the next merges from its run onto the tree the head left', () => {
    const history = [
      ...queueWith({ concurrency: 2 }),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      ...runPassed('r1', 1),
      ...runPassed('r2', 2),
      merged(1, 'r1'),
    ];
    expect(givenQueue(history).planned(facts({ sha: 'merge-1', tree: treeWith([1]) }))).toEqual([
      mergeStep(2, 'r2', 1, { sha: 'r2-c0', tree: treeWith([1]) }, treeWith([1, 2]), 'merge-1'),
    ]);
  });

  it('when the target already holds the merged tree (a crash before recording), then the merge is recognised, not redone', () => {
    const history = [...queueWith(), ...runStarted('r1', 1), ...runPassed('r1', 1)];
    expect(givenQueue(history).planned(facts({ sha: 'moved', tree: treeWith([1]) }))).toEqual([
      { kind: 'completeMerge', prNumber: 1, mergeSha: 'moved', testRunId: 'r1', reason: 'MERGE_GRAPH_MERGE' },
    ]);
  });

  it('when the queue is paused, then a passed head does not merge', () => {
    const history = [
      ...queueWith(),
      ...runStarted('r1', 1),
      ...runPassed('r1', 1),
      queueStateChanged('running', 'paused', undefined, at(50)),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([]);
  });
});

describe('plan: failures, blame and restarts', () => {
  it('when the head fails and nothing is ahead, then it is blamed at once (depth 0)', () => {
    const history = [...queueWith(), ...runStarted('r1', 1), ...runFailed('r1', 1)];
    expect(givenQueue(history).planned(facts())).toEqual([blamed(1, 'r1')]);
  });

  it('when a PR fails while the one under it is still testing, then it waits for it', () => {
    const history = [...queueWith({ concurrency: 2 }, [1, 2]), ...runStarted('r1', 1), ...runStarted('r2', 2, [1]), ...runFailed('r2', 2)];
    expect(givenQueue(history).planned(facts())).toEqual([]);
  });

  it('when the PR under a pending failure merges, then the failure is its own and it fails', () => {
    const history = [
      ...queueWith({ concurrency: 2 }),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      ...runFailed('r2', 2),
      ...runPassed('r1', 1),
      merged(1, 'r1'),
    ];
    expect(givenQueue(history).planned(facts({ sha: 'merge-1', tree: treeWith([1]) }))).toEqual([blamed(2, 'r2')]);
  });

  it('when the PR under a pending failure is blamed, then the pending failure restarts without it', () => {
    const history = [
      ...queueWith({ concurrency: 2 }),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      ...runFailed('r2', 2),
      ...runFailed('r1', 1),
      failed(1, 'r1'),
    ];
    expect(givenQueue(history).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when a PR in the middle is blamed, then only the runs stacking it restart', () => {
    const history = [
      ...queueWith({ concurrency: 3 }),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      ...runStarted('r3', 3, [1, 2]),
      ...runPassed('r1', 1),
      merged(1, 'r1'),
      ...runFailed('r2', 2),
      failed(2, 'r2'),
    ];
    expect(givenQueue(history).planned(facts({ sha: 'merge-1', tree: treeWith([1]) }))).toEqual([
      rec({ type: 'RestartTests', prNumber: 3, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
    ]);
  });

  it('when a PR under a run is cancelled, then the run restarts with PREREQUISITE_MERGE_ITEM_CANCELLED', () => {
    const history = [...queueWith({ concurrency: 2 }), ...runStarted('r1', 1), ...runStarted('r2', 2, [1]), prCancelled(1, at(49))];
    const cancelled: QueueEvent = { type: 'TestRunCancelled', data: { testRunId: 'r1', reason: 'PR_CANCELLED', at: at(49) } };
    expect(givenQueue([...history, cancelled]).planned(facts())).toEqual([
      rec({ type: 'RestartTests', prNumber: 2, reason: 'PREREQUISITE_MERGE_ITEM_CANCELLED' }),
    ]);
  });

  it('when someone else pushed to the target branch, then every run in flight restarts with MANUAL_PUSH_TO_TARGET_BRANCH', () => {
    const history = [...queueWith({ concurrency: 2 }), ...runStarted('r1', 1), ...runStarted('r2', 2, [1])];
    expect(givenQueue(history).planned(facts({ sha: 'pushed', tree: 'T+hotfix' }))).toEqual([
      rec({ type: 'RestartTests', prNumber: 1, reason: 'MANUAL_PUSH_TO_TARGET_BRANCH' }),
      rec({ type: 'RestartTests', prNumber: 2, reason: 'MANUAL_PUSH_TO_TARGET_BRANCH' }),
    ]);
  });

  describe('pendingFailureDepth and canOptimisticallyMerge', () => {
    const base = (settings: Partial<QueueSettings>) => [
      ...queueWith({ concurrency: 2, ...settings }, [1, 2]),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      ...runFailed('r1', 1),
    ];

    it('when depth is 1 and the successor stacking the failure is still testing, then the failure waits', () => {
      expect(givenQueue(base({ pendingFailureDepth: 1 })).planned(facts())).toEqual([]);
    });

    it('when depth is 1 and the successor failed too, then the head is blamed', () => {
      expect(givenQueue([...base({ pendingFailureDepth: 1 }), ...runFailed('r2', 2)]).planned(facts())).toEqual([blamed(1, 'r1')]);
    });

    it('when depth is 1, merging is optimistic and the successor passed, then the failure was a flake: the head passes by the successor', () => {
      expect(
        givenQueue([...base({ pendingFailureDepth: 1, canOptimisticallyMerge: true }), ...runPassed('r2', 2)]).planned(facts()),
      ).toEqual([rec({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r2' })]);
    });

    it('when depth is 1 and the successor failed too while its own successor still tests, then both wait: it stacks both and may prove them', () => {
      const three = [
        ...queueWith({ concurrency: 3, pendingFailureDepth: 1, canOptimisticallyMerge: true }),
        ...runStarted('r1', 1),
        ...runStarted('r2', 2, [1]),
        ...runStarted('r3', 3, [1, 2]),
        ...runFailed('r1', 1),
        ...runFailed('r2', 2),
      ];
      expect(givenQueue(three).planned(facts())).toEqual([]);
      expect(givenQueue([...three, ...runPassed('r3', 3)]).planned(facts())).toEqual([
        rec({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r3' }),
        rec({ type: 'PassBySuccessor', prNumber: 2, testRunId: 'r3' }),
      ]);
      expect(givenQueue([...three, ...runFailed('r3', 3)]).planned(facts())).toEqual([blamed(1, 'r1')]);
    });

    describe('a PR that failed with no successor stacking it (anti-flake witness)', () => {
      const antiFlake = { concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true };
      const blameOfOne = blamed(1, 'r1');
      const lone = (settings: Partial<QueueSettings> = antiFlake, prs = [1, 2, 3, 4]) => [
        ...queueWith(settings, prs),
        ...runStarted('r1', 1),
        ...runFailed('r1', 1),
      ];

      it('when anti-flake protection is on and PRs wait behind it, then it is not blamed yet: the next run stacks it as its witness', () => {
        expect(givenQueue(lone()).planned(facts())).toEqual([startOf(2, [1]), startOf(3, [2])]);
      });

      it('when its witness passes, then the failure was a flake: it passes by the witness', () => {
        expect(givenQueue([...lone(), ...runStarted('r2', 2, [1]), ...runPassed('r2', 2)]).planned(facts())).toEqual([
          rec({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r2' }),
        ]);
      });

      it('when its witness fails and the witness PR is then proven by a run without it, then it is blamed and no second witness is asked for', () => {
        const history = [
          ...lone(),
          ...runStarted('r2', 2, [1]),
          ...runStarted('r3', 3, [2]),
          ...runFailed('r2', 2),
          ...runPassed('r3', 3),
          passedBy(2, 'r3'),
        ];
        expect(givenQueue(history).planned(facts())).toEqual([blameOfOne]);
      });

      it('when nothing waits behind it, then it is blamed at once', () => {
        expect(givenQueue(lone(antiFlake, [1])).planned(facts())).toEqual([blameOfOne]);
      });

      it.each([
        ['merging is not optimistic', { canOptimisticallyMerge: false }],
        ['the depth is 0', { pendingFailureDepth: 0 }],
      ])('when %s, then no witness is stacked and it is blamed at once', (_, off) => {
        expect(givenQueue(lone({ ...antiFlake, ...off })).planned(facts())).toEqual([blameOfOne]);
      });
    });

    it('when depth is 0, then a passing successor does not clear the failure', () => {
      expect(
        givenQueue([...base({ pendingFailureDepth: 0, canOptimisticallyMerge: true }), ...runPassed('r2', 2)]).planned(facts()),
      ).toEqual([blamed(1, 'r1')]);
    });

    it('when merging is optimistic and a successor passed while the head is still testing, then the head passes by it and merges from its run', () => {
      const history = [
        ...queueWith({ concurrency: 2, canOptimisticallyMerge: true }),
        ...runStarted('r1', 1),
        ...runStarted('r2', 2, [1]),
        ...runPassed('r2', 2),
      ];
      expect(givenQueue(history).planned(facts())).toEqual([rec({ type: 'PassBySuccessor', prNumber: 1, testRunId: 'r2' })]);
      const cancelled: QueueEvent = {
        type: 'TestRunCancelled',
        data: { testRunId: 'r1', reason: 'SUCCESSOR_TEST_RUN_PASSED', at: at(48) },
      };
      expect(givenQueue([...history, cancelled, passedBy(1, 'r2')]).planned(facts())).toEqual([
        mergeStep(1, 'r2', 0, { sha: BASE_SHA, tree: BASE_TREE }, treeWith([1])),
      ]);
    });
  });
});

describe('plan: the host', () => {
  const running = [...queueWith(), ...runStarted('r1', 1)];

  it.each([
    ['closed', openPull('sha-1', { state: 'closed' }), 'PR_CLOSED'],
    ['pushed to', openPull('sha-1b'), 'PR_PUSHED_TO'],
    ['retargeted', openPull('sha-1', { baseBranch: 'release' }), 'PR_BASE_BRANCH_CHANGED'],
  ] as const)('when a queued PR is %s, then it is cancelled with that reason', (_what, pull, reason) => {
    expect(givenQueue(running).planned(facts({ pulls: [[1, pull]] }))).toEqual([rec({ type: 'CancelForHostChange', prNumber: 1, reason })]);
  });

  it('when a not-ready PR became mergeable, then its readiness is refreshed', () => {
    const history = [queueCreated(), prSubmitted(1, { state: 'not_ready', readiness: readiness({ mergeability: 'not_mergeable' }) })];
    expect(givenQueue(history).planned(facts({ pulls: [[1, openPull('sha-1', { mergeability: 'mergeable' })]] }))).toEqual([
      rec({ type: 'RefreshReadiness', prNumber: 1, headSha: 'sha-1', baseBranch: 'main', mergeability: 'mergeable' }),
    ]);
  });

  it('when the host says what the state already holds, then nothing is done', () => {
    expect(givenQueue(running).planned(facts({ pulls: [[1, openPull('sha-1')]] }))).toEqual([]);
  });

  it('when test branches of runs the state no longer holds exist, then they are deleted', () => {
    const history = [...queueWith({}, [1]), ...runStarted('r1', 1), ...runPassed('r1', 1), merged(1, 'r1')];
    expect(givenQueue(history).planned(facts({ sha: 'merge-1', tree: treeWith([1]), branches: ['r1', 'orphan'] }))).toEqual([
      { kind: 'deleteBranch', branch: 'railyard-merge/pr-1/r1' },
      { kind: 'deleteBranch', branch: 'railyard-merge/pr-1/orphan' },
    ]);
  });
});

describe('plan: direct merge', () => {
  const passing = [{ context: 'tests', state: 'success' as const }];
  const dm = (
    upToDate: boolean,
    headStatuses: { context: string; state: 'success' | 'failure' | 'pending' }[] = passing,
    headTree = 'T+1',
  ) => ({
    prNumber: 1,
    upToDate,
    headSha: 'sha-1',
    headTree,
    requiredStatuses: ['tests'],
    headStatuses,
  });
  const always = queueWith({ directMergeMode: 'always' }, [1]);

  it('when always on, the queue is empty, the PR is up to date and every required status passes on its head, then it merges without a run', () => {
    expect(givenQueue(always).planned(facts({ directMerge: dm(true) }))).toEqual([
      { kind: 'directMerge', prNumber: 1, headSha: 'sha-1', baseSha: BASE_SHA },
    ]);
  });

  it('when no status has reported on the PR head, then it is tested as usual', () => {
    expect(givenQueue(always).planned(facts({ directMerge: dm(true, []) }))).toEqual([startOf(1)]);
  });

  it('when a required status failed on the PR head, then it is tested as usual', () => {
    expect(givenQueue(always).planned(facts({ directMerge: dm(true, [{ context: 'tests', state: 'failure' }]) }))).toEqual([startOf(1)]);
  });

  it('when a required status is still pending on the PR head, then it is tested as usual', () => {
    expect(givenQueue(always).planned(facts({ directMerge: dm(true, [{ context: 'tests', state: 'pending' }]) }))).toEqual([startOf(1)]);
  });

  it('when only another context passed on the PR head, then it is tested as usual', () => {
    expect(givenQueue(always).planned(facts({ directMerge: dm(true, [{ context: 'lint', state: 'success' }]) }))).toEqual([startOf(1)]);
  });

  it('when no required status resolves for the queue, then it is tested as usual', () => {
    expect(givenQueue(always).planned(facts({ directMerge: { ...dm(true), requiredStatuses: [] } }))).toEqual([startOf(1)]);
  });

  it('when the PR is not up to date, then it is tested as usual', () => {
    expect(givenQueue(always).planned(facts({ directMerge: dm(false) }))).toEqual([startOf(1)]);
  });

  it('when the target already holds the PR tree, then the direct merge is recognised', () => {
    expect(givenQueue(always).planned(facts({ sha: 'direct', tree: 'T+1', directMerge: dm(true) }))).toEqual([
      { kind: 'completeMerge', prNumber: 1, mergeSha: 'direct', reason: 'MERGE_GRAPH_DIRECT_MERGE' },
    ]);
  });

  it('when direct merge is off, then an up-to-date PR with passing checks is tested', () => {
    expect(givenQueue(queueWith({}, [1])).planned(facts({ directMerge: dm(true) }))).toEqual([startOf(1)]);
  });

  it('when the queue has a PR in flight, then no PR is a direct-merge candidate', () => {
    const history = [...queueWith({ directMergeMode: 'always' }, [1, 2]), ...runStarted('r1', 1)];
    expect(directMergeCandidate(givenQueue(history).state)).toBeUndefined();
    expect(directMergeCandidate(givenQueue(always).state)?.prNumber).toBe(1);
  });
});
