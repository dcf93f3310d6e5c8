import type { CommitStatusState, FlakeRetryCause, PassReason, QueueEvent, TestRunStep } from '../../index';
import { at } from '../../testing/fixtures';
import type { HostFacts, PullFacts, ReportedStatus } from '../facts';
import { OverlapIndex, type TargetOverlaps } from '../overlaps';

/**
 * Builders for engine histories. Trees are named after what they hold (`T` is main's tree, `T+1+2`
 * main with PRs 1 and 2), so runs stacked on the same base agree on trees as real ones do.
 */
export const BASE_SHA = 'main-0';
export const BASE_TREE = 'T';
export const treeWith = (prs: number[], base = BASE_TREE): string => [base, ...prs].join('+');

export const runStarted = (
  testRunId: string,
  prNumber: number,
  dependentPrs: number[] = [],
  o: { baseSha?: string; baseTree?: string; requiredStatuses?: string[]; when?: string } = {},
): QueueEvent[] => {
  const stack = [...dependentPrs, prNumber];
  const baseTree = o.baseTree ?? BASE_TREE;
  const steps: TestRunStep[] = stack.map((n, i) => ({
    prNumber: n,
    sha: `${testRunId}-c${i}`,
    tree: treeWith(stack.slice(0, i + 1), baseTree),
  }));
  const when = o.when ?? at(45);
  return [
    {
      type: 'TestRunStarted',
      data: {
        testRunId,
        testBranch: `railyard-merge/pr-${prNumber}/${testRunId}`,
        testBranchSha: `${testRunId}-c${stack.length - 1}`,
        baseSha: o.baseSha ?? BASE_SHA,
        baseTree,
        steps,
        prNumbers: [prNumber],
        dependentPrs,
        requiredStatuses: o.requiredStatuses ?? ['tests'],
        requiredStatusesSource: 'trunk_config',
        bisection: false,
        at: when,
      },
    },
    { type: 'PrTestingStarted', data: { prNumber, testRunId, at: when } },
  ];
};

/**
 * A run testing several PRs at once (a batch, or with `bisectionOf` a bisection half, which first
 * moves its PRs back to pending as decideEngine records it).
 */
export const batchStarted = (
  testRunId: string,
  prNumbers: number[],
  dependentPrs: number[] = [],
  o: { bisectionOf?: string; baseSha?: string; baseTree?: string; when?: string } = {},
): QueueEvent[] => {
  const stack = [...dependentPrs, ...prNumbers];
  const baseTree = o.baseTree ?? BASE_TREE;
  const when = o.when ?? at(45);
  const steps: TestRunStep[] = stack.map((n, i) => ({
    prNumber: n,
    sha: `${testRunId}-c${i}`,
    tree: treeWith(stack.slice(0, i + 1), baseTree),
  }));
  return [
    ...(o.bisectionOf === undefined
      ? []
      : prNumbers.map((prNumber): QueueEvent => ({ type: 'TestsRestarted', data: { prNumber, reason: 'BISECTION_REQUIRED', at: when } }))),
    {
      type: 'TestRunStarted',
      data: {
        testRunId,
        testBranch: `railyard-merge/pr-${prNumbers[0] ?? 0}/${testRunId}`,
        testBranchSha: `${testRunId}-c${stack.length - 1}`,
        baseSha: o.baseSha ?? BASE_SHA,
        baseTree,
        steps,
        prNumbers,
        dependentPrs,
        requiredStatuses: ['tests'],
        requiredStatusesSource: 'trunk_config',
        bisection: o.bisectionOf !== undefined,
        ...(o.bisectionOf !== undefined ? { bisectionOf: o.bisectionOf } : {}),
        at: when,
      },
    },
    ...prNumbers.map((prNumber): QueueEvent => ({ type: 'PrTestingStarted', data: { prNumber, testRunId, at: when } })),
  ];
};

export const batchPassed = (
  testRunId: string,
  prNumbers: number[],
  reason: PassReason = 'TEST_RUN_PASSED',
  when = at(47),
): QueueEvent[] => [
  statusReported(testRunId, 'tests', 'success', when),
  { type: 'TestRunSucceeded', data: { testRunId, at: when } },
  ...prNumbers.map((prNumber): QueueEvent => ({ type: 'PrTestsPassed', data: { prNumber, testRunId, reason, at: when } })),
];

export const batchFailed = (testRunId: string, prNumbers: number[], when = at(47)): QueueEvent[] => [
  statusReported(testRunId, 'tests', 'failure', when),
  { type: 'TestRunFailed', data: { testRunId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['tests'], at: when } },
  ...prNumbers.map((prNumber): QueueEvent => ({
    type: 'PrPendingFailure',
    data: { prNumber, testRunId, failedContexts: ['tests'], at: when },
  })),
];

export const statusReported = (testRunId: string, context: string, state: CommitStatusState, when = at(46)): QueueEvent => ({
  type: 'TestRunStatusReported',
  data: { testRunId, context, state, at: when },
});

export const runPassed = (testRunId: string, prNumber: number, when = at(47)): QueueEvent[] => [
  statusReported(testRunId, 'tests', 'success', when),
  { type: 'TestRunSucceeded', data: { testRunId, at: when } },
  { type: 'PrTestsPassed', data: { prNumber, testRunId, reason: 'TEST_RUN_PASSED', at: when } },
];

export const runFailed = (testRunId: string, prNumber: number, when = at(47)): QueueEvent[] => [
  statusReported(testRunId, 'tests', 'failure', when),
  { type: 'TestRunFailed', data: { testRunId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['tests'], at: when } },
  { type: 'PrPendingFailure', data: { prNumber, testRunId, failedContexts: ['tests'], at: when } },
];

export const passedBy = (
  prNumber: number,
  testRunId: string,
  reason: PassReason = 'SUCCESSOR_TEST_RUN_PASSED',
  when = at(48),
): QueueEvent => ({
  type: 'PrTestsPassed',
  data: { prNumber, testRunId, reason, at: when },
});

export const merged = (prNumber: number, testRunId: string, when = at(49), ontoSha?: string): QueueEvent => ({
  type: 'PrMerged',
  data: {
    prNumber,
    mergeSha: `merge-${prNumber}`,
    ...(ontoSha !== undefined ? { ontoSha } : {}),
    testRunId,
    reason: 'MERGE_GRAPH_MERGE',
    at: when,
  },
});

export const failed = (prNumber: number, testRunId?: string, when = at(49)): QueueEvent => ({
  type: 'PrFailed',
  data: { prNumber, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'tests failed', ...(testRunId ? { testRunId } : {}), at: when },
});

export const restarted = (prNumber: number, when = at(48)): QueueEvent => ({
  type: 'TestsRestarted',
  data: { prNumber, reason: 'TESTS_RESTARTED_BY_API_REQUEST', at: when },
});

/** Host facts: main at `tree` (default: the base), every PR as the history left it unless `pulls` says otherwise. */
export const facts = (
  o: {
    sha?: string;
    tree?: string;
    pulls?: [number, PullFacts][];
    statuses?: [string, ReportedStatus[]][];
    branches?: string[];
    directMerge?: HostFacts['directMerge'];
    overlaps?: TargetOverlaps;
  } = {},
): HostFacts => ({
  target: { sha: o.sha ?? BASE_SHA, tree: o.tree ?? BASE_TREE },
  pulls: new Map(o.pulls ?? []),
  statuses: new Map(o.statuses ?? []),
  testBranches: (o.branches ?? []).map((id) => ({ branch: `railyard-merge/pr-1/${id}`, testRunId: id })),
  ...(o.directMerge ? { directMerge: o.directMerge } : {}),
  ...(o.overlaps ? { overlaps: o.overlaps } : {}),
});

/**
 * Parallel mode's facts from plain target lists: `lists` maps a digest to its targets; PRs name
 * their list with `targetsSet(pr, digest)` and a matching `count`.
 */
export const overlapsOf = (lists: Record<string, string[]>): OverlapIndex => {
  const index = new OverlapIndex();
  for (const [digest, names] of Object.entries(lists)) index.add(digest, names);
  return index;
};

export const openPull = (headSha: string, o: Partial<PullFacts> = {}): PullFacts => ({ headSha, baseBranch: 'main', state: 'open', ...o });

/** The events RetryTestRun records for a re-run `testRunId` of PR 1's lone run `of`, on r1's commit r1-c0. */
export const prOneReRun = (o: {
  testRunId: string;
  of: string;
  attempt: number;
  cause: FlakeRetryCause;
  detail: string;
  when: string;
}): QueueEvent[] => [
  { type: 'TestsRestarted', data: { prNumber: 1, reason: 'FLAKE_RETRY', at: o.when } },
  {
    type: 'TestRunStarted',
    data: {
      testRunId: o.testRunId,
      testBranch: 'railyard-merge/pr-1/r1',
      testBranchSha: 'r1-c0',
      baseSha: BASE_SHA,
      baseTree: BASE_TREE,
      steps: [{ prNumber: 1, sha: 'r1-c0', tree: treeWith([1]) }],
      prNumbers: [1],
      dependentPrs: [],
      requiredStatuses: ['tests'],
      requiredStatusesSource: 'trunk_config',
      bisection: false,
      retry: { of: o.of, attempt: o.attempt, cause: o.cause, contexts: ['tests'], detail: o.detail },
      at: o.when,
    },
  },
  { type: 'PrTestingStarted', data: { prNumber: 1, testRunId: o.testRunId, at: o.when } },
];
