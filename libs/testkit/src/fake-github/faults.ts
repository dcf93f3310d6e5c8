import { GithubHttpError } from './errors';
import type { OperationId } from './operations';

/** Failures a test can make the fake answer with, as real GitHub does under load or in a race. */
export type Fault =
  /** GitHub's abuse protection: 403 (or 429) with a message naming a secondary rate limit, optionally `retry-after`. */
  | { kind: 'secondary-rate-limit'; status?: 403 | 429; retryAfterSeconds?: number }
  /** The hourly budget spent: 403 (or 429), `x-ratelimit-remaining: 0`, `x-ratelimit-reset` this far ahead. */
  | { kind: 'primary-rate-limit'; status?: 403 | 429; resetInSeconds?: number }
  /** A 5xx; with afterApply the write is carried out first and only the answer fails, as when a request times out. */
  | { kind: 'server-error'; status?: 500 | 502 | 503 | 504; afterApply?: boolean }
  /** A ref update refused as though the branch had moved just before. */
  | { kind: 'not-fast-forward' };

export interface FaultRequest {
  operation: string;
  params: Record<string, string>;
  body: unknown;
}

export type FaultRule = Fault & {
  /** Only requests to this operation; any operation when absent. */
  operation?: OperationId;
  /** A further condition on the request (a ref, a body field). */
  when?: (request: FaultRequest) => boolean;
  /** How many matching requests fail; default 1, Infinity for all until cancelled. */
  times?: number;
};

export interface FaultHandle {
  /** Requests this rule has failed so far. */
  readonly hits: number;
  cancel(): void;
}

interface ActiveRule {
  rule: FaultRule;
  left: number;
  hits: number;
}

export class Faults {
  private rules: ActiveRule[] = [];

  constructor(private readonly nowSeconds: () => number) {}

  inject(rule: FaultRule): FaultHandle {
    const active: ActiveRule = { rule, left: rule.times ?? 1, hits: 0 };
    this.rules.push(active);
    return {
      get hits() {
        return active.hits;
      },
      cancel: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  clear(): void {
    this.rules = [];
  }

  /**
   * The fault this request meets, counted as used. `phase` is "before" for faults answered instead of
   * the operation and "after" for those answered once it was carried out.
   */
  take(request: FaultRequest, phase: 'before' | 'after'): Fault | null {
    const found = this.rules.find(
      ({ rule, left }) =>
        left > 0 &&
        (rule.operation === undefined || rule.operation === request.operation) &&
        (rule.kind === 'server-error' && rule.afterApply === true) === (phase === 'after') &&
        (rule.when === undefined || rule.when(request)),
    );
    if (!found) return null;
    found.left -= 1;
    found.hits += 1;
    return found.rule;
  }

  /** The error GitHub answers for a fault. */
  errorFor(fault: Fault, installationId: number | null): GithubHttpError {
    switch (fault.kind) {
      case 'secondary-rate-limit':
        return new GithubHttpError(
          fault.status ?? 403,
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
        );
      case 'primary-rate-limit':
        return new GithubHttpError(fault.status ?? 403, `API rate limit exceeded for installation ID ${installationId ?? 0}.`, {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(this.nowSeconds() + (fault.resetInSeconds ?? 60)),
        });
      case 'server-error':
        return new GithubHttpError(fault.status ?? 502, 'Server Error');
      case 'not-fast-forward':
        return new GithubHttpError(422, 'Update is not a fast forward');
    }
  }
}
