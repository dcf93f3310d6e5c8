/**
 * Reference throughputs the simulator compares against (reference peers §2.7). T is the CI duration
 * of one queue build in minutes, p the probability that a queued change fails, k the speculative
 * depth (runs in flight), b a batch size.
 */

export interface LinearBound {
  /** Changes decided per round of length T: the first failure among the k ends the round. */
  resolvedPerRound: number;
  mergesPerRound: number;
  mergesPerHour: number;
  /** CI builds started per merge: k per round over the merges of the round. */
  ciRunsPerMerge: number;
}

const check = (name: string, v: number, ok: boolean): void => {
  if (!ok || !Number.isFinite(v)) throw new RangeError(`${name} out of range: ${v}`);
};

/**
 * Linear speculation: k changes are tested at once, each stacked on all ahead of it. A round of
 * length T resolves (1-(1-p)^k)/p changes on average, of which (1-(1-p)^k)(1-p)/p merge, since the
 * first failure invalidates everything behind it. p = 0 is the limit: all k merge.
 */
export const linearSpeculationBound = (p: number, ciMinutes: number, k: number): LinearBound => {
  check('p', p, p >= 0 && p < 1);
  check('ciMinutes', ciMinutes, ciMinutes > 0);
  check('k', k, Number.isInteger(k) && k >= 1);
  const q = 1 - p;
  const resolvedPerRound = p === 0 ? k : (1 - q ** k) / p;
  const mergesPerRound = resolvedPerRound * q;
  return { resolvedPerRound, mergesPerRound, mergesPerHour: (mergesPerRound * 60) / ciMinutes, ciRunsPerMerge: k / mergesPerRound };
};

/**
 * Group testing (Dorfman): a batch of b runs once, and when it fails each change is retested alone.
 * Expected runs per change: 1/b + 1 - (1-p)^b.
 */
export const dorfmanRunsPerChange = (p: number, b: number): number => {
  check('p', p, p >= 0 && p <= 1);
  check('b', b, Number.isInteger(b) && b >= 1);
  return b === 1 ? 1 : 1 / b + 1 - (1 - p) ** b;
};

/**
 * Linear speculation over batches: each of the k slots holds a batch of b, which fails with
 * 1-(1-p)^b. An upper bound for a batching queue, since it charges nothing for finding culprits.
 */
export const batchedLinearBound = (p: number, ciMinutes: number, k: number, b: number): LinearBound => {
  const pb = 1 - (1 - p) ** b;
  const lanes = linearSpeculationBound(pb, ciMinutes, k);
  return {
    resolvedPerRound: lanes.resolvedPerRound * b,
    mergesPerRound: lanes.mergesPerRound * b,
    mergesPerHour: lanes.mergesPerHour * b,
    ciRunsPerMerge: lanes.ciRunsPerMerge / b,
  };
};

/**
 * The chance that one change's test run fails: a real breakage or a flaky run, which end a
 * speculation round alike. Merge conflicts are left out on purpose: the engine finds them while
 * building the test branch, before any CI runs, so they cost no round.
 */
export const effectiveFailureRate = (parts: { failureRate: number; flakeRate: number }): number =>
  1 - (1 - parts.failureRate) * (1 - parts.flakeRate);
