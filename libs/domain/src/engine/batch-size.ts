import type { QueueSettings } from '../config';

/**
 * What the queue believes of its PRs' failure rate before it has seen any outcome. 10% is where
 * the sizing below picks Trunk's suggested batch of 4, so a new queue batches as it always did.
 */
export const FAILURE_RATE_PRIOR = 0.1;

/**
 * Weight of one outcome in the moving estimate: about the last 50 merges and failures count. Fewer
 * would swing the size with every unlucky pair of failures; more would follow a bad week too late.
 */
export const FAILURE_RATE_WEIGHT = 0.02;

/** An exponentially weighted moving average after one more `value`, weighing `weight`. */
export const movingAverage = (before: number, value: number, weight: number): number => before + weight * (value - before);

/** A moving estimate of how often something happens, after one more outcome (`hit`), each weighing `weight`. */
export const foldMovingRate = (before: number, hit: boolean, weight: number): number => movingAverage(before, hit ? 1 : 0, weight);

/** The queue's estimate after one more PR merged (`failed` false) or was taken out as failed. */
export const foldFailureRate = (rate: number | undefined, failed: boolean): number =>
  foldMovingRate(rate ?? FAILURE_RATE_PRIOR, failed, FAILURE_RATE_WEIGHT);

type SizeSettings = Pick<QueueSettings, 'mode' | 'concurrency' | 'batchingMinSize' | 'batchingMaxSize'>;

/** The largest batch the settings allow; without `batchingMaxSize` the size is fixed, as in Trunk. */
export const batchSizeBounds = (s: Pick<QueueSettings, 'batchingMinSize' | 'batchingMaxSize'>): { min: number; max: number } => ({
  min: s.batchingMinSize,
  max: Math.max(s.batchingMinSize, s.batchingMaxSize ?? s.batchingMinSize),
});

/**
 * Expected CI runs per PR for batches of `k` at failure rate `p`: one run per batch, and when the
 * batch fails (probability 1 - (1-p)^k) its PRs are tested again one by one (Dorfman's two-stage
 * model) and, in single mode, the runs stacked behind it are thrown away and started again.
 */
export const runsPerPr = (k: number, p: number, stackedBehind: number): number => {
  const failing = 1 - Math.pow(1 - p, k);
  return 1 / k + failing * (1 + stackedBehind / k);
};

/**
 * The batch size a queue uses now: the size with the fewest expected CI runs per PR at the
 * observed failure rate, within the queue's bounds. Ties go to the smaller batch (a smaller batch
 * merges sooner and bisects faster), and so does every size no cheaper than testing each PR alone.
 */
export const batchSizeFor = (s: SizeSettings, failureRate: number | undefined): number => {
  const { min, max } = batchSizeBounds(s);
  if (min === max) return min;
  const p = failureRate ?? FAILURE_RATE_PRIOR;
  const stackedBehind = s.mode === 'single' ? Math.max(0, s.concurrency - 1) : 0;
  let best = min;
  let bestCost = runsPerPr(min, p, stackedBehind);
  for (let k = min + 1; k <= max; k++) {
    const cost = runsPerPr(k, p, stackedBehind);
    // Past about 30% failures no batch beats testing alone; a bigger one then only bisects longer.
    if (cost < 1 && cost < bestCost - 1e-9) [best, bestCost] = [k, cost];
  }
  return best;
};
