import type { QueueMode } from './config';
import type { Mergeability, PrReadinessChanged, Readiness } from './events';
import type { Entry } from './state';

/** `unspecified` and `in_progress` mean the host is still working it out (GitHub's `mergeable: null`). */
export const isMergeabilityKnown = (m: Mergeability): boolean => m === 'mergeable' || m === 'not_mergeable';

export const isReady = (r: Readiness): boolean =>
  r.doesBaseBranchMatch && r.mergeability === 'mergeable' && (!r.requiresImpactedTargets || r.hasImpactedTargets);

export const readinessOf = (input: {
  mode: QueueMode;
  queueBranch: string;
  baseBranch: string;
  mergeability: Mergeability;
  hasImpactedTargets: boolean;
}): Readiness => ({
  requiresImpactedTargets: input.mode === 'parallel',
  doesBaseBranchMatch: input.baseBranch === input.queueBranch,
  hasImpactedTargets: input.hasImpactedTargets,
  mergeability: input.mergeability,
});

export const sameReadiness = (a: Readiness, b: Readiness): boolean =>
  a.requiresImpactedTargets === b.requiresImpactedTargets &&
  a.doesBaseBranchMatch === b.doesBaseBranchMatch &&
  a.hasImpactedTargets === b.hasImpactedTargets &&
  a.mergeability === b.mergeability;

/**
 * The event for an entry whose readiness signals changed, or undefined when none did. Only waiting
 * entries (not_ready, pending) move: one already testing keeps its place whatever the signals say.
 */
export const readinessChange = (e: Entry, readiness: Readiness, at: string): PrReadinessChanged | undefined => {
  if ((e.state !== 'not_ready' && e.state !== 'pending') || sameReadiness(readiness, e.readiness)) return undefined;
  const state = isReady(readiness) ? 'pending' : 'not_ready';
  const reason = state === e.state ? 'READINESS_UPDATED' : state === 'pending' ? 'MERGE_ITEM_NOW_READY' : 'MERGE_ITEM_NO_LONGER_READY';
  return { type: 'PrReadinessChanged', data: { prNumber: e.prNumber, readiness, state, reason, at } };
};
