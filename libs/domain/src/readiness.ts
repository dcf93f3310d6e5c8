import type { QueueMode } from './config';
import type { Mergeability, Readiness } from './events';

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
