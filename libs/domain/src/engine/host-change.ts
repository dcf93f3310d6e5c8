import type { Entry } from '../state';
import type { HostCancelReason } from './commands';

/** What the host shows of a PR that decides whether its entry must leave the queue. */
export interface HostPullState {
  state: 'open' | 'closed' | 'merged';
  headSha: string;
  baseBranch: string;
}

/**
 * Why a change on the host cancels a queued PR, or undefined when it does not: closed, pushed to
 * (its head is no longer the one queued), or retargeted away from the queue's branch. The planner and
 * the GitHub webhooks both ask this one rule.
 */
export const hostCancelReason = (queueBranch: string, e: Entry, pr: HostPullState): HostCancelReason | undefined => {
  if (pr.state === 'merged') return undefined;
  if (pr.state === 'closed') return 'PR_CLOSED';
  if (pr.headSha !== e.headSha) return 'PR_PUSHED_TO';
  if (pr.baseBranch !== queueBranch && e.readiness.doesBaseBranchMatch) return 'PR_BASE_BRANCH_CHANGED';
  return undefined;
};
