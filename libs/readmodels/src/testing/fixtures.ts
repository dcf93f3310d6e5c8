import {
  DEFAULT_SETTINGS,
  parseQueueId,
  queueIdOf,
  type CancelReason,
  type PrSubmitted,
  type QueueEvent,
  type QueueRunState,
  type Readiness,
} from '@railyard/domain';

/** Domain events with plausible defaults, for read-side tests. Only what a test cares about is passed. */
export const testQueueId = (branch = 'main'): string => queueIdOf({ host: 'github.com', owner: 'acme', name: 'rails' }, branch);

export const READY: Readiness = {
  requiresImpactedTargets: false,
  doesBaseBranchMatch: true,
  hasImpactedTargets: false,
  mergeability: 'mergeable',
};
export const NOT_READY: Readiness = { ...READY, mergeability: 'in_progress' };

export const queueCreated = (queueId: string, at: string, state: 'running' | 'paused' | 'draining' = 'running'): QueueEvent => {
  const { repo, branch } = parseQueueId(queueId);
  return {
    type: 'QueueCreated',
    data: { queueId, repo, branch, settings: { ...DEFAULT_SETTINGS }, requiredStatuses: ['ci/build'], state, at },
  };
};

export const prSubmitted = (
  n: number,
  at: string,
  opts: {
    priorityValue?: number;
    priorityName?: PrSubmitted['data']['priorityName'];
    readiness?: Readiness;
    sha?: string;
    defaulted?: boolean;
  } = {},
): QueueEvent => {
  const readiness = opts.readiness ?? READY;
  const state: 'pending' | 'not_ready' = readiness.mergeability === 'mergeable' ? 'pending' : 'not_ready';
  return {
    type: 'PrSubmitted',
    data: {
      entryId: `entry-${n}`,
      prNumber: n,
      title: `PR ${n}`,
      headSha: opts.sha ?? `sha-${n}`,
      author: `dev-${n}`,
      baseBranch: 'main',
      priorityValue: opts.priorityValue ?? 100,
      priorityName: opts.priorityName ?? 'medium',
      ...(opts.defaulted ? { usedDefaultPriorityName: 'medium' as const } : {}),
      noBatch: false,
      readiness,
      state,
      reason: 'API_REQUESTED',
      at,
    },
  };
};

export const prPriorityChanged = (
  n: number,
  at: string,
  priorityValue: number,
  priorityName: PrSubmitted['data']['priorityName'],
  noBatch = false,
): QueueEvent => ({
  type: 'PrPriorityChanged',
  data: { prNumber: n, priorityValue, priorityName, noBatch, at },
});

export const prReadinessChanged = (n: number, at: string, readiness: Readiness): QueueEvent => {
  const state: 'pending' | 'not_ready' = readiness.mergeability === 'mergeable' ? 'pending' : 'not_ready';
  return {
    type: 'PrReadinessChanged',
    data: { prNumber: n, readiness, state, reason: state === 'pending' ? 'MERGE_ITEM_NOW_READY' : 'MERGE_ITEM_NO_LONGER_READY', at },
  };
};

export const prCancelled = (n: number, at: string, reason: CancelReason = 'API_REQUESTED'): QueueEvent => ({
  type: 'PrCancelled',
  data: { prNumber: n, reason, at },
});

export const queueStateChanged = (from: QueueRunState, to: QueueRunState, at: string): QueueEvent => ({
  type: 'QueueStateChanged',
  data: { from, to, at },
});

export const queueDeleted = (at: string): QueueEvent => ({ type: 'QueueDeleted', data: { at } });

/**
 * An event type the domain does not define yet, shaped as the engine's events will be. Cast through
 * QueueEvent because the union rightly has no room for it.
 */
export const futureEngineEvent = (type: string, data: Record<string, unknown>): QueueEvent => ({ type, data }) as unknown as QueueEvent;
