import type { QueueEvent, TestRunStarted } from '@railyard/domain';

/** Engine events with plausible defaults, for test-run read-model tests. */
export const testRunStarted = (
  testRunId: string,
  at: string,
  opts: Partial<Omit<TestRunStarted['data'], 'testRunId' | 'at'>> = {},
): QueueEvent => ({
  type: 'TestRunStarted',
  data: {
    testRunId,
    testBranch: `railyard-merge/pr-${opts.prNumbers?.[0] ?? 1}/${testRunId}`,
    testBranchSha: `test-sha-${testRunId}`,
    baseSha: 'base-sha',
    prNumbers: [1],
    dependentPrs: [],
    requiredStatuses: ['build'],
    requiredStatusesSource: 'trunk_config',
    bisection: false,
    ...opts,
    at,
  },
});

export const statusReported = (
  testRunId: string,
  at: string,
  context: string,
  state: 'pending' | 'success' | 'failure' | 'error',
  url?: string,
): QueueEvent => ({
  type: 'TestRunStatusReported',
  data: { testRunId, context, state, ...(url ? { url } : {}), at },
});

export const runSucceeded = (testRunId: string, at: string): QueueEvent => ({ type: 'TestRunSucceeded', data: { testRunId, at } });

export const runFailed = (testRunId: string, at: string, failedContexts: string[] = ['build']): QueueEvent => ({
  type: 'TestRunFailed',
  data: { testRunId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts, at },
});

export const runTimedOut = (testRunId: string, at: string): QueueEvent => ({ type: 'TestRunTimedOut', data: { testRunId, at } });

export const runCancelled = (testRunId: string, at: string, reason = 'PREREQUISITE_MERGE_ITEM_FAILED'): QueueEvent => ({
  type: 'TestRunCancelled',
  data: { testRunId, reason, at },
});

export const targetsSet = (
  prNumber: number,
  headSha: string,
  at: string,
  digest = `digest-${prNumber}`,
  count = 2,
  all = false,
): QueueEvent => ({
  type: 'ImpactedTargetsSet',
  data: { prNumber, headSha, digest, count, all, at },
});
