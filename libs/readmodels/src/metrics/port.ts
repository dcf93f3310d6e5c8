import type { RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type { QueueMetricsDoc } from './projection/model';

/**
 * The metrics read model: one document per existing queue (its live entries and a rolling log of
 * what happened), fed by the projector like the queue views but with a checkpoint of its own, so
 * it can be added to a running deployment or rebuilt without touching the other models.
 */
export interface MetricsStore {
  /** Folds the events in and moves the checkpoint in one atomic step; events at or below it are skipped. */
  apply(events: RecordedEvent[]): Promise<void>;
  checkpoint(): Promise<bigint | null>;
  /** Resolves true once the checkpoint reaches `position`, false after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
  /** The documents of every existing queue, or of one repository's queues. Treat them as read-only. */
  queues(repo?: RepoRef): Promise<QueueMetricsDoc[]>;
  /** Forgets every document and the checkpoint, ready for a rebuild from position 0. */
  reset(): Promise<void>;
  close(): Promise<void>;
}
