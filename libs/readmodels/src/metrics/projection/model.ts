import type { PrState, RepoRef } from '@railyard/domain';

/** The "1h" series look this far back from the scrape's clock; older log records are pruned. */
export const METRICS_WINDOW_MS = 60 * 60 * 1000;

/** Trunk's published buckets for every mq_*_1h_seconds histogram. */
export const DURATION_BUCKETS = [60, 300, 600, 900, 1800, 3600, 5400, 7200] as const;

export type QueueType = 'main' | 'bisection';
export const QUEUE_TYPES: readonly QueueType[] = ['main', 'bisection'];
export type Conclusion = 'merged' | 'failed' | 'cancelled';
export const CONCLUSIONS: readonly Conclusion[] = ['merged', 'failed', 'cancelled'];
/** The states an entry can spend time in (terminal states end its time in the queue). */
export const LIVE_STATES = ['not_ready', 'pending', 'testing', 'tests_passed', 'pending_failure'] as const satisfies readonly PrState[];
export type LiveState = (typeof LIVE_STATES)[number];

/** A queue entry that has not reached a terminal state, with what its durations are measured from. */
export interface LiveEntry {
  state: LiveState;
  /** Epoch ms the entry entered `state`. */
  since: number;
  /** Epoch ms it was first admitted (became pending) in this submission; absent while it never was. */
  admittedAt?: number;
  /** The run it is (or was last) tested in, and that run's kind. */
  testRunId?: string;
  queueType: QueueType;
  /** Test runs that tested it in this submission. */
  runs: number;
  /** Of those, re-runs of a failed run on the same commit (flakeRetries). */
  retries?: number;
  headSha: string;
}

/**
 * One thing that happened, kept for the rolling window: `[epoch ms, kind, label, seconds]`.
 * Kinds: c conclusion (label: conclusion), r restart (queue type), w wait (queue type),
 * t test duration (queue type), q time in queue (conclusion), s state duration (state).
 * Tuples keep a busy queue's document small; it is rewritten on every batch.
 */
export type LogKind = 'c' | 'r' | 'w' | 't' | 'q' | 's';
export type LogRecord = [at: number, kind: LogKind, label: string, seconds: number];

/** Cumulative counts since the queue was created: the railyard_* series, which are real counters. */
export interface QueueTotals {
  testRuns: Record<QueueType, number>;
  /** Observations of "test runs it took" for each merged PR: cumulative bucket counts over CI_RUN_BUCKETS. */
  ciRunsPerMerged: { cumulative: number[]; sum: number; count: number };
  innocentEjections: number;
  bisections: number;
  /** Re-runs of failed runs on the same commit (flakeRetries, docs/engine.md Flakes); absent in documents folded before them. */
  flakeRetries?: number;
  /** Observations of "flake re-runs it took" for each merged PR, over FLAKE_RETRY_BUCKETS; absent as above. */
  flakeRetriesPerMerged?: { cumulative: number[]; sum: number; count: number };
}

export const FLAKE_RETRY_BUCKETS = [0, 1, 2, 3] as const;

/** A PR whose last submission failed, remembered so a later merge of the same commit counts as an innocent ejection. */
export interface FailedPr {
  headSha: string;
  /** Failures of this same commit since it last changed. */
  failures: number;
  at: number;
}

export const CI_RUN_BUCKETS = [0, 1, 2, 3, 5, 8, 13] as const;

/** Everything the metrics endpoint needs of one queue, as one document. */
export interface QueueMetricsDoc {
  queueId: string;
  repo: RepoRef;
  branch: string;
  /** Non-terminal entries by PR number (the Redis store keeps them in a hash beside the document, D337). */
  entries: Record<string, LiveEntry>;
  /** Test runs in flight and their kind, so a PR's PrTestingStarted learns whether it is a bisection. */
  runs: Record<string, QueueType>;
  /** Rolling log, oldest first, pruned to the window before the newest event's time. */
  log: LogRecord[];
  totals: QueueTotals;
  failed: Record<string, FailedPr>;
  /** Runs already counted as a bisection (a batch split), newest last, bounded. */
  bisectedRuns: string[];
  /** Position of the last event folded in (decimal string). */
  position: string;
}
