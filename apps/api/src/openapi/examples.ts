import { DEFAULT_SETTINGS } from '@railyard/domain';

/** Examples the operations share in the OpenAPI document; each must be valid for its schema (Redocly checks). */
export const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const KEY = { repo: REPO, targetBranch: 'main' };
export const PR_KEY = { ...KEY, pr: { number: 12 } };
export const SHA = '9c1f6e0b4a7d3e2f1c0b9a8d7e6f5a4b3c2d1e0f';
export const TEST_ID = '6ba7b811-9dad-51d1-80b4-00c04fd430c8';
export const RUN_ID = '01HZY3M9Q8K2B7V4N6C1D5E0FA';

const SETTINGS = { state: 'running', branch: 'main', ...DEFAULT_SETTINGS, concurrency: 2, requiredStatuses: ['build', 'test'] };
export const ENVELOPE = { ...SETTINGS, testingTimeoutMins: 300, isBatching: false, batchingMaxWaitTimeMins: 5, queue: SETTINGS };

export const PR = {
  id: '0f8c2b1e-6a4d-4c1e-9a57-2d1f0b8e3c11',
  state: 'testing',
  readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, gitHubMergeability: 'mergeable' },
  stateChangedAt: '2026-03-01T09:30:00.000Z',
  priorityValue: 100,
  priorityName: 'medium',
  usedDefaultPriorityName: 'medium',
  skipTheLine: false,
  forceEnqueued: false,
  isCurrentlySubmittedToQueue: true,
  noBatch: false,
  prNumber: 12,
  prTitle: 'Add the widget cache',
  prSha: SHA,
  prBaseBranch: 'main',
  prAuthor: 'ada',
  stateReason: { code: 'TEST_RUN_STARTED', message: 'testing on run 7d2e (branch railyard-merge/pr-12/7d2e)', testRunId: '7d2e' },
  waitingOn: [{ kind: 'required_statuses', message: 'required statuses missing on run 7d2e: test', checks: ['test'] }],
  lastTestRun: {
    id: '7d2e',
    status: 'testing',
    testBranch: 'railyard-merge/pr-12/7d2e',
    checks: [
      { name: 'lint', state: 'success', url: 'https://railyard.example.com/ci/logs/7d2e/lint' },
      { name: 'test', state: 'pending', url: 'https://railyard.example.com/ci/logs/7d2e/test' },
    ],
    failedChecks: [],
  },
};

/** The fields every one of Trunk's PR answers shows (a listPullRequests item), of the PR above. */
export const PR_SUMMARY = {
  id: PR.id,
  state: PR.state,
  stateChangedAt: PR.stateChangedAt,
  priorityValue: PR.priorityValue,
  priorityName: PR.priorityName,
  usedDefaultPriorityName: PR.usedDefaultPriorityName,
  skipTheLine: PR.skipTheLine,
  noBatch: PR.noBatch,
  prNumber: PR.prNumber,
  prTitle: PR.prTitle,
  prSha: PR.prSha,
  prBaseBranch: PR.prBaseBranch,
  prAuthor: PR.prAuthor,
};
