import type { TestRunView } from './projection/docs';

/**
 * The test runs' read side. Runs are folded in the same batch as the queue's models (a run shows its
 * PRs' titles and heads as they were), so the queue stores implement this port beside their own.
 */
export interface TestRunReadModel {
  /** A test run of the queue, ended or not, or null when the queue never had it. */
  getTestRun(queueId: string, testRunId: string): Promise<TestRunView | null>;
}
