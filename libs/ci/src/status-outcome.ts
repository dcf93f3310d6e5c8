import type { CommitStatusState } from '@railyard/domain';

export type StatusOutcome = 'passed' | 'failed' | 'pending';

// GitHub's check-run conclusions and status states, as forges and CI plugins spell them. As Trunk
// documents it: ERROR counts as a failure; ACTION_REQUIRED and STALE are neutral; QUEUED, REQUESTED, WAITING
// and PENDING are queued. Only a success passes, so neutral and queued both wait.
const FAILED = new Set(['failure', 'error', 'timed_out', 'cancelled', 'startup_failure']);

/** How one reported state counts for the run, in any case: passed, failed, or still pending. */
export const outcomeOfState = (state: string): StatusOutcome => {
  const s = state.trim().toLowerCase();
  if (s === 'success') return 'passed';
  return FAILED.has(s) ? 'failed' : 'pending';
};

/** The four commit-status states from any spelling a CI sends, or undefined when it is none of them. */
export const commitStateOf = (state: string): CommitStatusState | undefined => {
  const s = state.trim().toLowerCase();
  return s === 'pending' || s === 'success' || s === 'failure' || s === 'error' ? s : undefined;
};

export interface RequiredStatusesVerdict {
  outcome: StatusOutcome;
  /** Required contexts whose latest state failed, in the order of the required list. */
  failedContexts: string[];
  /** Required contexts not reported yet or still pending. */
  pendingContexts: string[];
}

/**
 * Judges a run by its required statuses: failed as soon as one fails (no need to wait for the rest),
 * passed once every one passed, else pending. Contexts match exactly, as the names reported to the
 * host must; a status nobody requires changes nothing.
 */
export const evaluateRequiredStatuses = (
  required: readonly string[],
  statuses: ReadonlyArray<{ context: string; state: string }>,
): RequiredStatusesVerdict => {
  const latest = new Map<string, string>();
  for (const s of statuses) latest.set(s.context, s.state);
  const failedContexts: string[] = [];
  const pendingContexts: string[] = [];
  for (const context of new Set(required)) {
    const state = latest.get(context);
    const outcome = state === undefined ? 'pending' : outcomeOfState(state);
    if (outcome === 'failed') failedContexts.push(context);
    else if (outcome === 'pending') pendingContexts.push(context);
  }
  const outcome: StatusOutcome =
    failedContexts.length > 0 ? 'failed' : pendingContexts.length > 0 || required.length === 0 ? 'pending' : 'passed';
  return { outcome, failedContexts, pendingContexts };
};
