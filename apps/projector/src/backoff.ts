export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 10_000 };

/**
 * Delay before retry number `attempt` (0-based): doubling, capped, with up to half of it as jitter so
 * several processes that failed together do not come back together.
 */
export const backoffDelay = (attempt: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number => {
  const base = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base / 2 + (base / 2) * random());
};
