import type { TestRun } from '../state';
import { FAILURE_RATE_WEIGHT, foldMovingRate } from './batch-size';

/**
 * Weight of one re-run's outcome in the queue's estimate of how often a failure no test results name
 * passes when run again on the same commit: about the last 50 such re-runs count, as for the failure
 * rate (batch-size.ts).
 */
export const RERUN_PASS_WEIGHT = FAILURE_RATE_WEIGHT;

/**
 * Past this estimate the queue's checks flake: two failures of one commit in a row no longer settle
 * it, so a failure nothing else judged gets one more re-run (flakeRetriesFor, D336). A queue whose
 * re-runs never pass stays at 0 and pays nothing for it.
 */
export const FLAKY_QUEUE_RERUN_PASSES = 0.05;

/** How often the queue's re-runs of failures no test results name passed, and how many it has seen. */
export interface RerunPasses {
  rate: number;
  count: number;
}

/** Whether the run is a re-run of a failure of unknown kind whose outcome the estimate counts. */
export const countsAsRerun = (run: TestRun | undefined): boolean => run?.retry?.cause === 'NO_TEST_RESULTS' && !run.bisection;

/**
 * The estimate after one more such re-run passed or failed. Until it has seen about 50, each counts
 * as much as any other (the plain share): a moving average started at 0 needed three passes before
 * it read 5%, so a new queue ejected its first flakes as real (D341).
 */
export const foldRerunPasses = (before: RerunPasses | undefined, passed: boolean): RerunPasses => {
  const count = (before?.count ?? 0) + 1;
  return { rate: foldMovingRate(before?.rate ?? 0, passed, Math.max(RERUN_PASS_WEIGHT, 1 / count)), count };
};
