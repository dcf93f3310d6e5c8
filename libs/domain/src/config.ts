export const QUEUE_STATES = ['running', 'paused', 'draining', 'switching_modes'] as const;
export type QueueRunState = (typeof QUEUE_STATES)[number];
export const REQUESTABLE_QUEUE_STATES = ['running', 'paused', 'draining'] as const;
export type RequestableQueueState = (typeof REQUESTABLE_QUEUE_STATES)[number];

export const QUEUE_MODES = ['single', 'parallel'] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];
export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];
export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export type DirectMergeMode = (typeof DIRECT_MERGE_MODES)[number];
export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number];

/** Everything updateQueue may change, except `state` (its own event) and the required-status override. */
export interface QueueSettings {
  mode: QueueMode;
  concurrency: number;
  bisectionConcurrency: number;
  testingTimeoutMinutes: number;
  pendingFailureDepth: number;
  canOptimisticallyMerge: boolean;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  /**
   * Railyard's own: when above `batchingMinSize`, the batch size follows the queue's observed failure
   * rate between the two (engine/batch-size.ts). Absent: batches of `batchingMinSize`, as in Trunk.
   */
  batchingMaxSize?: number;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  createPrsForTestingBranches: boolean;
  statusCheckEnabled: boolean;
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
  /**
   * Re-runs of a failed run on the same commit before its PRs are blamed or its batch is split, when
   * the failure may be a flake (docs/engine.md, Flakes). 0 turns retries off.
   */
  flakeRetries: number;
  /**
   * Re-runs of PRs that failed alone going on at once beside the queue, outside `concurrency` (docs/engine.md,
   * Flakes): the queue keeps every slot while a failure is re-run. Past it a re-run takes a slot of the
   * queue's; 0 makes every re-run wait for one. CI must have room for `concurrency` plus this many runs.
   */
  flakeRetryConcurrency: number;
  /**
   * A lone failure of unknown kind (no test results name a failing test) keeps its place while it is
   * re-run beside the queue, and the runs stacked on it judge it (D322, D336): the first of them to
   * pass vouches for it (it still merges from its own re-run unless `canOptimisticallyMerge`), the
   * first to fail before that makes it step aside. Off: it steps aside at once (D204).
   */
  unknownFailuresHoldPlace: boolean;
}

/** The most re-runs a queue may spend on one failure: more only hides a broken test (docs/decisions.md). */
export const MAX_FLAKE_RETRIES = 3;

/**
 * The most re-runs for a PR holding its place once a run stacked on it passed: its change passed, so
 * its failures are flakes but for a rare case, and ejecting it restarts every run stacked on it
 * (D345: at 10% flaky runs, three failed re-runs in a row still ejected one good PR in ~10,000).
 */
export const MAX_VOUCHED_RETRIES = 5;

/**
 * Defaults of a new queue. Trunk's documented defaults: single, concurrency 1; batching
 * off (suggested size 4, wait 5 min); pendingFailureDepth 0; timeout 5 h; squash;
 * §4.9 (comments, commands, status check, draft PRs on). directMergeMode is `off` on purpose: merging
 * without a test run should be something a team opts into.
 */
export const DEFAULT_SETTINGS: QueueSettings = {
  mode: 'single',
  concurrency: 1,
  bisectionConcurrency: 1,
  testingTimeoutMinutes: 300,
  pendingFailureDepth: 0,
  canOptimisticallyMerge: false,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  commentsEnabled: true,
  commandsEnabled: true,
  createPrsForTestingBranches: true,
  statusCheckEnabled: true,
  directMergeMode: 'off',
  optimizationMode: 'off',
  mergeMethod: 'squash',
  flakeRetries: 1,
  flakeRetryConcurrency: 1,
  // On since D336: a PR held on a failure merges only from its own re-run, unless optimistic merging is on.
  unknownFailuresHoldPlace: true,
};

export const MAX_UINT32 = 4294967295;

/** Past this, one failure sends a whole day's PRs to bisection: no failure rate makes it cheaper. */
export const MAX_BATCH_SIZE = 256;
