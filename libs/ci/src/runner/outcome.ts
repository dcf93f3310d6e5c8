import type { CommitStatusState, RepoRef } from '@railyard/domain';
import type { LimitName } from './limits/limits';

/**
 * Why the local CI could not give a check's verdict, through no fault of the code under test
 * (docs/ci.md, "Infrastructure errors"):
 * - CI_SANDBOX_UNAVAILABLE: bubblewrap is missing or may not make namespaces here (an operator's fix);
 * - CI_CHECKOUT_FAILED: the checkout of the tested commit could not be made;
 * - CI_CHECK_NOT_STARTED: the process or the sandbox around it failed before the command ran;
 * - CI_CHECKOUT_LOST: the checkout disappeared or was replaced while the check ran;
 * - CI_RUNNER_ERROR: the runner itself failed (a bug, a full disk).
 */
export const INFRASTRUCTURE_ERROR_CODES = [
  'CI_SANDBOX_UNAVAILABLE',
  'CI_CHECKOUT_FAILED',
  'CI_CHECK_NOT_STARTED',
  'CI_CHECKOUT_LOST',
  'CI_RUNNER_ERROR',
] as const;
export type InfrastructureErrorCode = (typeof INFRASTRUCTURE_ERROR_CODES)[number];

export interface InfrastructureError {
  code: InfrastructureErrorCode;
  message: string;
}

/**
 * What became of one check. Only `failed` is the check's verdict against the code; `infrastructure`
 * never is. `started`: whether the command had begun when the run was stopped.
 */
export type CheckOutcome =
  | { kind: 'passed'; seconds: number }
  /** `limit`: the check passed one of its limits and was stopped; the reason names it and its setting. */
  | { kind: 'failed'; exitCode: number | null; signal: string | null; limit?: { name: LimitName; reason: string } }
  | { kind: 'timed_out'; minutes: number; started: boolean }
  | { kind: 'cancelled'; started: boolean }
  /** Railyard itself stopped (a deploy, SIGTERM): no outcome at all; the status stays pending for the next engine to run it again. */
  | { kind: 'interrupted' }
  | ({ kind: 'infrastructure' } & InfrastructureError);

export interface CheckFinished {
  repo: RepoRef;
  sha: string;
  testRunId: string;
  check: string;
  outcome: CheckOutcome;
}

const PREFIX = 'infrastructure error ';
const MAX_DESCRIPTION = 1024;
const ENCODED = new RegExp(`^${PREFIX}(CI_[A-Z_]+): ([^]*)$`);

/**
 * The commit status description of an infrastructure error: `infrastructure error <CODE>: <message>`,
 * so that whoever reads only the statuses (another process, after a restart) tells it from a failure.
 */
export const infrastructureDescription = (error: InfrastructureError): string =>
  `${PREFIX}${error.code}: ${error.message}`.slice(0, MAX_DESCRIPTION);

/** The infrastructure error an `error` status of the local CI stands for, or undefined for any other status. */
export const infrastructureErrorOf = (status: { state: string; description?: string | undefined }): InfrastructureError | undefined => {
  if (status.state !== 'error' || !status.description) return undefined;
  const match = ENCODED.exec(status.description);
  const code = match?.[1] as InfrastructureErrorCode | undefined;
  return code && INFRASTRUCTURE_ERROR_CODES.includes(code) ? { code, message: match?.[2] ?? '' } : undefined;
};

/** The commit status that tells the outcome: only a failure is `failure`; what is no verdict on the code is `error`. */
export const statusOf = (outcome: CheckOutcome): { state: CommitStatusState; description: string } => {
  switch (outcome.kind) {
    case 'passed':
      return { state: 'success', description: `passed in ${outcome.seconds}s` };
    case 'failed':
      if (outcome.limit) return { state: 'failure', description: `stopped at a limit: ${outcome.limit.reason}` };
      return {
        state: 'failure',
        description: outcome.exitCode === null ? `killed by ${outcome.signal ?? 'a signal'}` : `exit code ${outcome.exitCode}`,
      };
    case 'timed_out':
      return {
        state: 'error',
        description: outcome.started ? `timed out after ${outcome.minutes} min; process tree killed` : 'timed out before it started',
      };
    case 'cancelled':
      return { state: 'error', description: outcome.started ? 'cancelled; process tree killed' : 'cancelled before it started' };
    case 'interrupted':
      return { state: 'pending', description: 'interrupted: Railyard stopped; the next engine runs it again' };
    case 'infrastructure':
      return { state: 'error', description: infrastructureDescription(outcome) };
  }
};
