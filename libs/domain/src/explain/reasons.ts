import type { PrState } from '../events';
import type { StateReason } from '../entry';
import type { ExplainRun } from './types';

const ticked = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');

/** The checks a failure is blamed on: the run's own list, else what the failure event named. */
export const failedChecksOf = (reason: StateReason | undefined, run: ExplainRun | undefined): string[] => {
  if (run && run.failedContexts.length > 0) return run.failedContexts;
  if (reason?.failedContexts && reason.failedContexts.length > 0) return reason.failedContexts;
  return run ? run.statuses.filter((s) => s.state === 'failure' || s.state === 'error').map((s) => s.context) : [];
};

const onRun = (id: string | undefined): string => (id ? ` on run ${id}` : '');

const checksFailed = (checks: string[], runId: string | undefined): string =>
  checks.length === 0
    ? `a required check failed${onRun(runId)}`
    : `${checks.length === 1 ? 'check' : 'checks'} ${ticked(checks)} failed${onRun(runId)}`;

// One sentence per reason code (Trunk's reason codes); a code this table does not know still reads sensibly.
const FAILED: Record<string, (runId: string | undefined, checks: string[]) => string> = {
  TEST_RUN_REQUIRED_STATUS_FAILED: (id, checks) => `failed because ${checksFailed(checks, id)}`,
  TEST_RUN_TIMEOUT: (id) => `failed because ${id ? `run ${id}` : 'its run'} did not finish within the queue's testing timeout`,
  TEST_RUN_FAILED_BY_OPTIMIZATION: (id, checks) => `failed because bisection blamed it: ${checksFailed(checks, id)}`,
  START_TEST_RUN_MERGE_CONFLICT: () => 'failed because it does not merge cleanly onto the PRs ahead and the target branch',
  START_TEST_RUN_NO_REQUIRED_STATUSES: () => 'failed because no required statuses are configured, so no run can pass',
  START_TEST_RUN_CONFIG_PARSING_FAILURE: () => "failed because the repository's CI configuration could not be read",
  PR_UPDATED_AT_MERGE_TIME: () => 'failed because the PR changed while it was being merged',
  GITHUB_API_MERGE_PR_FAILED: () => 'failed because the code host refused the merge',
};

const CANCELLED: Record<string, string> = {
  API_REQUESTED: 'cancelled through the API',
  USER_REQUESTED: 'cancelled by a user',
  PR_CLOSED: 'cancelled because the PR was closed',
  PR_PUSHED_TO: 'cancelled because the head moved: a new commit was pushed to the PR',
  PR_BASE_BRANCH_CHANGED: "cancelled because the PR's base branch changed",
  PR_MERGED_INTO_OTHER_BRANCH: 'cancelled because the PR was merged into another branch',
};

const MOVED_BACK: Record<string, string> = {
  API_REQUESTED: 'submitted through the API',
  USER_REQUESTED: 'submitted by a user',
  MERGE_ITEM_NOW_READY: 'ready: every readiness condition holds',
  MERGE_ITEM_NO_LONGER_READY: 'no longer ready',
  READINESS_UPDATED: 'readiness updated',
  TESTS_RESTARTED_BY_API_REQUEST: 'tests restarted through the API',
  TESTS_RESTARTED_BY_USER: 'tests restarted by a user',
  MANUAL_PUSH_TO_TARGET_BRANCH: 'tests restarted because the target branch moved outside the queue',
  PREREQUISITE_MERGE_ITEM_FAILED: 'tests restarted because a PR it was stacked on failed',
  PREREQUISITE_MERGE_ITEM_CANCELLED: 'tests restarted because a PR it was stacked on was cancelled',
  PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED: 'tests restarted because a PR it was stacked on was merged by hand',
  SKIP_THE_LINE_INTERRUPTED: 'tests restarted because an urgent PR took its place',
  BISECTION_REQUIRED: 'back in the queue to be retested in a bisection of a failed batch',
  BISECTION_TEST_RUN_PASSED: 'back in the queue to be tested alone after its bisection half passed',
  FLAKE_RETRY: 're-run on the same commit because its failure may be a flake',
  FLAKE_RETRY_PASSED: 'back in the queue behind the PRs in flight: its re-run passed after they went on without it',
};

const readable = (code: string): string => code.toLowerCase().replace(/_/g, ' ');

/** The sentence for a PR's state and the reason it got there. */
export const reasonSentence = (state: PrState, reason: StateReason | undefined, run: ExplainRun | undefined): string => {
  const code = reason?.code ?? '';
  const runId = reason?.testRunId ?? run?.testRunId;
  const detail = reason?.detail ? `: ${reason.detail}` : '';
  switch (state) {
    case 'failed': {
      const sentence = FAILED[code];
      return `${sentence ? sentence(runId, failedChecksOf(reason, run)) : `failed (${readable(code)})`}${detail}`;
    }
    case 'cancelled':
      return `${CANCELLED[code] ?? `cancelled (${readable(code)})`}${detail}`;
    case 'merged':
      if (code === 'MANUAL_MERGE') return 'merged outside the queue';
      if (code === 'MERGE_GRAPH_DIRECT_MERGE') return 'merged directly: nothing was ahead to test it against';
      return `merged${runId ? ` after run ${runId} passed` : ''}`;
    case 'testing':
      return `testing${onRun(runId)}${run?.testBranch ? ` (branch ${run.testBranch})` : ''}`;
    case 'tests_passed':
      if (code === 'SUCCESSOR_TEST_RUN_PASSED') return `passed because a run stacked on it passed${onRun(runId)}`;
      if (code === 'PASSED_BY_OPTIMIZATION') return 'passed: bisection cleared it without running it alone';
      if (code === 'FLAKE_RETRIED') return `passed on a re-run of its failed run on the same commit (a flake)${onRun(runId)}`;
      return `tests passed${onRun(runId)}`;
    case 'pending_failure':
      return `${checksFailed(failedChecksOf(reason, run), runId)}; the failure is not yet blamed on this PR`;
    case 'pending':
    case 'not_ready':
      return `${state === 'pending' ? 'queued' : 'not ready'}: ${MOVED_BACK[code] ?? readable(code)}${detail}`;
    default:
      return `${readable(state)} (${readable(code)})`;
  }
};
