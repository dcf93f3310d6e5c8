import type { QueueRunState } from '../config';
import type { PrState } from '../events';
import type { CommitStatusState, HostProblemCode, RequiredStatusesSource } from '../events-engine';
import type { WaitingOn } from './types';

/**
 * Plain words for the codes people meet in the dashboard and the CLI: one table per kind of code, kept
 * here so every view says the same thing. Views show these words and keep the code beside them (a
 * title or data attribute) so a search for the code still finds it.
 */

export const PR_STATE_WORDS: Record<PrState, string> = {
  not_ready: 'not ready',
  pending: 'waiting',
  testing: 'testing',
  tests_passed: 'passed, waiting to merge',
  merged: 'merged',
  failed: 'failed',
  cancelled: 'cancelled',
  pending_failure: 'failed, not yet blamed',
};

export const QUEUE_STATE_WORDS: Record<QueueRunState, string> = {
  running: 'running',
  paused: 'paused',
  draining: 'draining',
  switching_modes: 'switching modes',
};

/** A test run's status as the read model keeps it. */
export const RUN_STATUS_WORDS: Record<string, string> = {
  in_progress: 'running',
  testing: 'running',
  succeeded: 'passed',
  failed: 'failed',
  timed_out: 'timed out',
  cancelled: 'cancelled',
};

export const CHECK_STATE_WORDS: Record<CommitStatusState, string> = {
  pending: 'running',
  success: 'passed',
  failure: 'failed',
  error: 'errored',
};

export const HOST_PROBLEM_WORDS: Record<HostProblemCode, string> = {
  REPOSITORY_NOT_FOUND: 'the code host has no such repository, so nothing in this queue can be tested or merged',
  INVALID_TARGET_BRANCH: "the queue's branch is not a name the code host can serve, so nothing in this queue can be tested or merged",
};

export const REQUIRED_STATUSES_SOURCE_WORDS: Record<RequiredStatusesSource, string> = {
  trunk_config: "the repository's .railyard.yml",
  repo_provider_branch_protection: "the code host's branch protection",
  merge_instance: "the queue's settings",
};

/** A code no table knows, still readable: SOME_CODE → "some code". */
export const readableCode = (code: string): string => code.toLowerCase().replace(/_/g, ' ');

/** The words for `code` in `table`, or the code made readable when the table does not know it. */
export const wordsFor = (table: Readonly<Record<string, string>>, code: string): string => table[code] ?? readableCode(code);

/** What a PR waits on, in plain words: names checks and PRs, not run ids. */
export const waitingWords = (w: WaitingOn): string => {
  switch (w.kind) {
    case 'required_statuses':
      return w.checks && w.checks.length > 0 ? `checks still running: ${w.checks.join(', ')}` : 'its test run to report the result';
    default:
      return w.message;
  }
};

/**
 * The reason codes events carry, each as a short phrase for a history row (the event's name says what
 * happened; this says why). reasons.ts turns the same codes into a PR's full state sentence.
 */
export const REASON_WORDS: Record<string, string> = {
  API_REQUESTED: 'asked for through the API',
  USER_REQUESTED: 'asked for by a user',
  MERGE_ITEM_NOW_READY: 'every readiness condition holds',
  MERGE_ITEM_NO_LONGER_READY: 'no longer ready',
  READINESS_UPDATED: 'readiness changed',
  TESTS_RESTARTED_BY_API_REQUEST: 'tests restarted through the API',
  TESTS_RESTARTED_BY_USER: 'tests restarted by a user',
  MANUAL_PUSH_TO_TARGET_BRANCH: 'the target branch moved outside the queue',
  PREREQUISITE_MERGE_ITEM_FAILED: 'a PR it was stacked on failed',
  PREREQUISITE_MERGE_ITEM_CANCELLED: 'a PR it was stacked on was cancelled',
  PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED: 'a PR it was stacked on was merged by hand',
  SKIP_THE_LINE_INTERRUPTED: 'an urgent PR took its place',
  BISECTION_REQUIRED: 'a failed batch is being split to find the culprit',
  BISECTION_TEST_RUN_PASSED: 'its half of a split batch passed',
  FLAKE_RETRY: 're-run on the same commit: the failure may be a flake',
  FLAKE_RETRY_PASSED: 'its re-run passed',
  FLAKE_RETRIED: 'passed on a re-run (a flake)',
  FLAKY_TESTS: 'only flaky tests failed',
  INFERRED_FAILURE: 'failure inferred',
  NO_TEST_RESULTS: 'no test results were uploaded',
  INFRASTRUCTURE_RETRIES_EXHAUSTED: 'the CI kept failing to run it',
  PR_CLOSED: 'the PR was closed',
  PR_PUSHED_TO: 'a new commit was pushed to the PR',
  PR_BASE_BRANCH_CHANGED: "the PR's base branch changed",
  PR_MERGED_INTO_OTHER_BRANCH: 'the PR was merged into another branch',
  PR_UPDATED_AT_MERGE_TIME: 'the PR changed while it was being merged',
  GITHUB_API_MERGE_PR_FAILED: 'the code host refused the merge',
  MANUAL_MERGE: 'merged outside the queue',
  MERGE_GRAPH_MERGE: 'merged by the queue',
  MERGE_GRAPH_DIRECT_MERGE: 'merged directly: nothing was ahead of it',
  TEST_RUN_STARTED: 'a test run started',
  TEST_RUN_PASSED: 'its test run passed',
  SUCCESSOR_TEST_RUN_PASSED: 'a run stacked on it passed',
  PASSED_BY_OPTIMIZATION: 'cleared by bisection without its own run',
  TEST_RUN_FAILED: 'its test run failed',
  TEST_RUN_REQUIRED_STATUS_FAILED: 'a required check failed',
  TEST_RUN_FAILED_BY_OPTIMIZATION: 'bisection blamed it',
  TEST_RUN_TIMEOUT: "its run did not finish within the queue's testing timeout",
  START_TEST_RUN_MERGE_CONFLICT: 'it does not merge cleanly onto the PRs ahead and the target branch',
  START_TEST_RUN_NO_REQUIRED_STATUSES: 'no required checks are configured',
  START_TEST_RUN_CONFIG_PARSING_FAILURE: "the repository's CI configuration could not be read",
  ...HOST_PROBLEM_WORDS,
};

/** An event's name in words: PrFailed → "PR failed", TestRunStarted → "Test run started". */
export const eventWords = (type: string): string => {
  const words = type
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bpr\b/g, 'PR');
  return words.charAt(0).toUpperCase() + words.slice(1);
};
