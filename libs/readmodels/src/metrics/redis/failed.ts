import type { FailedPr } from '../projection/model';
import type { FailedPrs } from '../projection/project';

/**
 * One queue's failed PRs as a batch sees them in Redis (D312): only the PRs its events name are
 * loaded (HMGET of the queue's hash), and what the fold does to them is kept as the writes to make.
 * A record the batch never named changes only by `forgetBefore`, which the write replays on the
 * time-ordered set, so the whole map is never read nor written.
 */
export class LoadedFailedPrs implements FailedPrs {
  private readonly values = new Map<string, FailedPr | null>();
  /** PRs whose record the batch changed: written (or deleted) after the trim below. */
  readonly changed = new Set<string>();
  /** The latest horizon a failure of the batch forgot records before; null when none failed. */
  horizon: number | null = null;
  /** True once the queue was created again or deleted in the batch: every stored record goes first. */
  cleared = false;

  constructor(loaded: ReadonlyMap<string, FailedPr | null>) {
    for (const [pr, value] of loaded) this.values.set(pr, value);
  }

  get(pr: string): FailedPr | undefined {
    const value = this.values.get(pr);
    // A PR the batch did not name would read as "never failed" and fold a wrong count: refuse.
    if (value === undefined) throw new Error(`failed PR ${pr} was not loaded for this batch`);
    return value ?? undefined;
  }

  set(pr: string, failed: FailedPr): void {
    this.get(pr);
    this.values.set(pr, failed);
    this.changed.add(pr);
  }

  delete(pr: string): void {
    if (!this.get(pr)) return;
    this.values.set(pr, null);
    this.changed.add(pr);
  }

  forgetBefore(horizon: number): void {
    this.horizon = this.horizon === null ? horizon : Math.max(this.horizon, horizon);
    for (const [pr, f] of this.values) if (f && f.at < horizon) this.delete(pr);
  }

  clear(): void {
    this.cleared = true;
    for (const [pr, f] of this.values) if (f) this.values.set(pr, null);
  }

  /** The record as the batch left it (null: none), for the PRs it changed. */
  valueOf(pr: string): FailedPr | null {
    return this.values.get(pr) ?? null;
  }
}
