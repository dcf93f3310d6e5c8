import type { TimedRun } from '../runs';

/** Number of sorted values <= x. */
function countAtMost(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? 0) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface WindowView {
  /** Index range [from, to) of the runs in (c - window, c]. */
  from: number;
  to: number;
  runs: number;
  failures: number;
  rate: number;
  /** A failing run arrived exactly at c. */
  failureArrived: boolean;
  /** Non-failing runs in a row ending with the latest run at or before c. */
  passStreak: number;
}

/**
 * Rolling-window counts over sorted runs. The window only changes when a run enters (its time)
 * or leaves (its time + window), so those instants are the only ones worth evaluating.
 */
export class RateWindow {
  private readonly times: number[];
  private readonly failuresBefore: number[] = [0];
  private readonly streakAt: number[] = [];

  constructor(
    readonly runs: readonly TimedRun[],
    private readonly windowMs: number,
    isFailure: (r: TimedRun) => boolean,
  ) {
    this.times = runs.map((r) => r.t);
    let streak = 0;
    runs.forEach((r, i) => {
      const failed = isFailure(r);
      this.failuresBefore.push((this.failuresBefore[i] ?? 0) + (failed ? 1 : 0));
      streak = failed ? 0 : streak + 1;
      this.streakAt.push(streak);
    });
  }

  checkpoints(now: number): number[] {
    const all = new Set<number>();
    for (const t of this.times) {
      all.add(t);
      if (t + this.windowMs <= now) all.add(t + this.windowMs);
    }
    return [...all].sort((a, b) => a - b);
  }

  at(c: number): WindowView {
    const to = countAtMost(this.times, c);
    const from = countAtMost(this.times, c - this.windowMs);
    const arrivedFrom = countAtMost(this.times, c - 1);
    const failures = (this.failuresBefore[to] ?? 0) - (this.failuresBefore[from] ?? 0);
    const runs = to - from;
    return {
      from,
      to,
      runs,
      failures,
      rate: runs === 0 ? 0 : failures / runs,
      failureArrived: (this.failuresBefore[to] ?? 0) - (this.failuresBefore[arrivedFrom] ?? 0) > 0,
      passStreak: to === 0 ? 0 : (this.streakAt[to - 1] ?? 0),
    };
  }
}
