import { sameRepo, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { CheckpointWaiters } from '../../memory/waiters';
import { foldMetricsBatchInPlace, metricsQueuesOf } from '../projection/batch';
import type { QueueMetricsDoc } from '../projection/model';
import type { MetricsStore } from '../port';
import type { Snapshottable } from '../../memory/snapshot';

/** Metrics documents in process memory: the embedded server (rebuilt from the events at start) and tests. */
export class MemoryMetricsStore implements MetricsStore, Snapshottable {
  readonly snapshotName = 'metrics';
  // Raise with any change to QueueMetricsDoc or to how the metrics projection folds it.
  readonly snapshotSchema = 1;
  private docs = new Map<string, QueueMetricsDoc>();
  private position: bigint | null = null;
  private readonly waiters = new CheckpointWaiters();

  /**
   * Folded in place (docs/decisions.md D121): no await inside, so readers never see half a batch, and
   * a document a reader holds across an await shows later batches, never part of one. A batch that
   * throws part-way may have left half an event in a document: the store then starts over empty, and
   * the projector, resubscribing from the checkpoint it reads (none), folds every event again.
   */
  async apply(events: RecordedEvent[]): Promise<void> {
    const fresh = this.position === null ? events : events.filter((e) => e.position > (this.position as bigint));
    const last = fresh[fresh.length - 1];
    if (!last) return;
    const docs = new Map<string, QueueMetricsDoc | null>();
    for (const id of metricsQueuesOf(fresh)) docs.set(id, this.docs.get(id) ?? null);
    try {
      foldMetricsBatchInPlace(docs, fresh);
    } catch (err) {
      this.docs = new Map();
      this.position = null;
      throw err;
    }
    for (const [id, doc] of docs) {
      if (doc) this.docs.set(id, doc);
      else this.docs.delete(id);
    }
    this.position = last.position;
    this.waiters.reached(last.position);
  }

  async checkpoint(): Promise<bigint | null> {
    return this.position;
  }

  snapshot(): { position: bigint; body: Map<string, QueueMetricsDoc> } | null {
    return this.position === null ? null : { position: this.position, body: this.docs };
  }

  restore(position: bigint, body: unknown): void {
    this.docs = body as Map<string, QueueMetricsDoc>;
    this.position = position;
    this.waiters.reached(position);
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position !== null && this.position >= position) return true;
    return this.waiters.wait(position, timeoutMs);
  }

  async queues(repo?: RepoRef): Promise<QueueMetricsDoc[]> {
    const all = [...this.docs.values()];
    return repo ? all.filter((d) => sameRepo(d.repo, repo)) : all;
  }

  async reset(): Promise<void> {
    this.docs = new Map();
    this.position = null;
  }

  async close(): Promise<void> {
    this.waiters.cancelAll();
  }
}
