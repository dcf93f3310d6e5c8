import type { UploadStats } from '../junit/upload-stats';
import type { ClassificationRules } from './rules';

/**
 * True when an upload looks like an outage (runner died, database down): so many of its tests
 * failed that it says nothing about any single test. Such uploads are left out of detection and
 * of the impact numbers. Small uploads are never excluded: 3 failures out of 3 can be real.
 */
export function isOutageUpload(stats: UploadStats | undefined, guard: ClassificationRules['outageGuard']): boolean {
  if (!guard.enabled || !stats || stats.testCount < guard.minTests) return false;
  return stats.failedCount / stats.testCount > guard.maxFailedRatio;
}
