import type { FailedPr } from '../projection/model';
import type { FailedPrs } from '../projection/project';
import { LoadedFields } from './loaded';

/**
 * One queue's failed PRs as a batch sees them in Redis (D312): only the PRs its events name are
 * loaded (HMGET of the queue's hash). A record the batch never named changes only by `forgetBefore`,
 * which the write replays on the time-ordered set, so the whole map is never read nor written.
 */
export class LoadedFailedPrs extends LoadedFields<FailedPr> implements FailedPrs {
  /** The latest horizon a failure of the batch forgot records before; null when none failed. */
  horizon: number | null = null;

  constructor(loaded: ReadonlyMap<string, FailedPr | null>) {
    super(loaded, 'failed PR');
  }

  forgetBefore(horizon: number): void {
    this.horizon = this.horizon === null ? horizon : Math.max(this.horizon, horizon);
    for (const [pr, f] of this.values) if (f && f.at < horizon) this.delete(pr);
  }
}
