export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** Consecutive failures tolerated before the subscription gives up and reports the error. */
  maxAttempts: number;
}

export const defaultBackoff: BackoffPolicy = { baseMs: 100, capMs: 5_000, maxAttempts: 10 };

/** Exponential delay with full jitter, so several subscribers do not retry in lockstep. */
export function backoffDelay(policy: BackoffPolicy, attempt: number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
