import type { HistoryEntry } from './entry';

/** One test run's start and end as the queue's history records them. */
export interface RunTime {
  testRunId: string;
  prNumbers: number[];
  startedAt: string;
  endedAt?: string;
  outcome?: 'succeeded' | 'failed' | 'timed_out' | 'cancelled';
}

const ENDS: Record<string, RunTime['outcome']> = {
  TestRunSucceeded: 'succeeded',
  TestRunFailed: 'failed',
  TestRunTimedOut: 'timed_out',
  TestRunCancelled: 'cancelled',
};

/** The runs of a queue's history in start order; the first event that ends a run sets its end. */
export const runTimesOf = (entries: readonly HistoryEntry[]): RunTime[] => {
  const runs = new Map<string, RunTime>();
  for (const e of entries) {
    const id = e.data.testRunId;
    if (typeof id !== 'string') continue;
    if (e.type === 'TestRunStarted') {
      const prNumbers = Array.isArray(e.data.prNumbers) ? (e.data.prNumbers as number[]) : [];
      runs.set(id, { testRunId: id, prNumbers, startedAt: e.time });
      continue;
    }
    const outcome = ENDS[e.type];
    const run = runs.get(id);
    if (outcome && run && run.endedAt === undefined) {
      run.endedAt = e.time;
      run.outcome = outcome;
    }
  }
  return [...runs.values()];
};

/** How an estimate was made, so a view can say it is a guess and from what. */
export interface RunTimeBasis {
  /** The median length of the runs it is based on, in seconds. */
  medianSeconds: number;
  /** How many finished runs it is based on. */
  runs: number;
}

/** The runs an estimate looks back on: recent enough to reflect the queue's CI as it is now. */
export const ESTIMATE_RUNS = 20;

/**
 * The median length of the queue's last passed or failed runs (cancelled ones were cut short and
 * timed-out ones say nothing of a normal run), or undefined when none finished yet.
 */
export const runTimeBasis = (runs: readonly RunTime[], last = ESTIMATE_RUNS): RunTimeBasis | undefined => {
  const finished = runs
    .filter((r) => r.endedAt !== undefined && (r.outcome === 'succeeded' || r.outcome === 'failed'))
    .sort((a, b) => Date.parse(a.endedAt as string) - Date.parse(b.endedAt as string))
    .slice(-last)
    .map((r) => (Date.parse(r.endedAt as string) - Date.parse(r.startedAt)) / 1000)
    .sort((a, b) => a - b);
  if (finished.length === 0) return undefined;
  const mid = Math.floor(finished.length / 2);
  const median = finished.length % 2 === 1 ? (finished[mid] as number) : ((finished[mid - 1] as number) + (finished[mid] as number)) / 2;
  return { medianSeconds: median, runs: finished.length };
};

/**
 * A guess of the seconds until each active PR merges (given in queue order), assuming every run takes
 * the median time and passes: a PR testing now needs what is left of its run; a waiting PR needs the
 * rounds of `concurrency` runs ahead of it, one more for its own, less what the current round has run.
 * Undefined for every PR when there is no basis.
 */
export const estimateSecondsToMerge = (
  prs: readonly { state: string; testingSince?: string }[],
  concurrency: number,
  basis: RunTimeBasis | undefined,
  now: number,
): (number | undefined)[] => {
  if (!basis) return prs.map(() => undefined);
  const d = basis.medianSeconds;
  const elapsed = (since: string | undefined) => (since ? Math.max(0, (now - Date.parse(since)) / 1000) : 0);
  // The round in flight is as far along as its oldest run.
  const inFlight = prs.filter((p) => p.state === 'testing').map((p) => elapsed(p.testingSince));
  const roundElapsed = Math.min(d, inFlight.length > 0 ? Math.max(...inFlight) : 0);
  const lanes = Math.max(1, concurrency);
  return prs.map((p, i) => {
    if (p.state === 'testing' || p.state === 'tests_passed') return Math.max(0, d - Math.min(d, elapsed(p.testingSince)));
    return Math.max(0, (Math.floor(i / lanes) + 1) * d - roundElapsed);
  });
};
