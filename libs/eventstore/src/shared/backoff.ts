/** How long to wait after failures in a row: the first delay, and the longest however many failed. */
export interface Backoff {
  minMs: number;
  maxMs: number;
}

/** A backoff that gives up: consecutive failures tolerated before the error is reported. */
export interface BackoffPolicy extends Backoff {
  maxAttempts: number;
}

export const defaultBackoff: BackoffPolicy = { minMs: 100, maxMs: 5_000, maxAttempts: 10 };

/**
 * The delay after the `failures`-th failure in a row (1 for the first): minMs doubled for each failure
 * before it, times a random factor from 1 to 2 so processes that failed together do not come back
 * together, and never over maxMs. The one backoff of the subscriptions, the projector and the engine.
 */
export const backoffDelay = (failures: number, { minMs, maxMs }: Backoff, random: () => number = Math.random): number =>
  Math.round(Math.min(maxMs, minMs * 2 ** Math.min(Math.max(failures - 1, 0), 30) * (1 + random())));
