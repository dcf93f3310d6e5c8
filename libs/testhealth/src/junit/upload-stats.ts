import type { TestCaseResult } from './types';

/** Per-upload counts the outage guard needs (see classify/outage-guard). */
export interface UploadStats {
  /** Cases that ran (skipped excluded). */
  testCount: number;
  /** Cases whose final outcome was a failure; flaky cases passed in the end and do not count. */
  failedCount: number;
}

export function uploadStatsOf(cases: readonly TestCaseResult[]): UploadStats {
  let testCount = 0;
  let failedCount = 0;
  for (const c of cases) {
    if (c.status === 'skipped') continue;
    testCount += 1;
    if (c.status === 'failed') failedCount += 1;
  }
  return { testCount, failedCount };
}
