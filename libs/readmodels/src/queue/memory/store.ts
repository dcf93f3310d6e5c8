import type { RecordedEvent } from '@railyard/eventstore';
import { explainView, explainViews, queueAnswerJson } from '../explain';
import { prResponse } from '../views';
import type { PrView, QueueView, ReadModelStore } from '../port';
import { foldBatch, prKeyOf, targetsOfBatch, type DocSet } from '../projection/batch';
import { isCurrent, type PrDoc, type QueueDoc } from '../projection/docs';
import { byQueueOrder, isActive } from '../projection/order';
import { MemoryTestRuns } from '../../testruns/memory/store';
import type { TestRunView } from '../../testruns/projection/docs';
import { CheckpointWaiters } from '../../memory/waiters';

/**
 * Stored documents are frozen once, when written, so readers can be handed them as they are: no copy
 * per read (the embedded API's hottest path), and a caller that tried to change one would throw
 * instead of corrupting the model. The projection never mutates documents; it builds new ones.
 */
const frozen = <T>(value: T): T => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) frozen(child);
    Object.freeze(value);
  }
  return value;
};

/** Read models in process memory: the embedded mode (rebuilt from the event store at start) and unit tests. */
export class MemoryReadModelStore implements ReadModelStore {
  private queues = new Map<string, QueueDoc>();
  private prs = new Map<string, PrDoc>();
  /** Active PR keys per queue, so listing a queue does not walk every PR ever submitted. */
  private active = new Map<string, Set<string>>();
  private position: bigint | null = null;
  private readonly waiters = new CheckpointWaiters();
  private readonly testRuns = new MemoryTestRuns();

  // No await inside: a batch is folded and published in one turn of the event loop, which is what
  // makes it atomic for readers in the same process.
  async apply(events: RecordedEvent[]): Promise<void> {
    const fresh = this.position === null ? events : events.filter((e) => e.position > (this.position as bigint));
    if (fresh.length === 0) return;
    const targets = targetsOfBatch(fresh);
    const docs: DocSet = { queues: new Map(), prs: new Map() };
    for (const id of targets.queueIds) docs.queues.set(id, this.queues.get(id) ?? null);
    for (const key of targets.prs.keys()) docs.prs.set(key, this.prs.get(key) ?? null);
    const changes = foldBatch(docs, fresh);
    // Before the PR documents below are replaced: runs record their PRs as they were.
    this.testRuns.apply(fresh, (key) => this.prs.get(key));

    for (const id of changes.queueIds) {
      const doc = docs.queues.get(id);
      if (doc) this.queues.set(id, frozen(doc));
    }
    for (const id of changes.regenerated) this.active.delete(id);
    for (const key of changes.prKeys) {
      const doc = docs.prs.get(key);
      if (!doc) continue;
      this.prs.set(key, frozen(doc));
      const queueId = doc.view.queueId;
      const set = this.active.get(queueId) ?? new Set<string>();
      if (isActive(this.queues.get(queueId) ?? null, doc)) set.add(key);
      else set.delete(key);
      this.active.set(queueId, set);
    }
    this.position = fresh[fresh.length - 1]?.position ?? this.position;
    if (this.position !== null) this.waiters.reached(this.position);
  }

  async checkpoint(): Promise<bigint | null> {
    return this.position;
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position !== null && this.position >= position) return true;
    return this.waiters.wait(position, timeoutMs);
  }

  async getQueue(queueId: string): Promise<QueueView | null> {
    const view = this.queues.get(queueId)?.view;
    return view ?? null;
  }

  async listActivePrs(queueId: string): Promise<PrView[]> {
    const queue = this.queues.get(queueId) ?? null;
    const views: PrView[] = [];
    for (const key of this.active.get(queueId) ?? []) {
      const doc = this.prs.get(key) ?? null;
      if (isActive(queue, doc)) views.push(doc.view);
    }
    return views.sort(byQueueOrder);
  }

  async getPr(queueId: string, prNumber: number): Promise<PrView | null> {
    const doc = this.prs.get(prKeyOf(queueId, prNumber)) ?? null;
    return isCurrent(this.queues.get(queueId) ?? null, doc) ? doc.view : null;
  }

  // Built on each read: in process memory that costs what the API's own JSON write would.
  async getQueueAnswer(queueId: string): Promise<string | null> {
    const view = this.queues.get(queueId)?.view;
    if (!view) return null;
    const prs = await this.listActivePrs(queueId);
    return queueAnswerJson(view, prs, await explainViews(this, view, prs));
  }

  async getPrAnswer(queueId: string, prNumber: number): Promise<string | null> {
    const view = await this.getPr(queueId, prNumber);
    return view ? JSON.stringify(prResponse(view, await explainView(this, view))) : null;
  }

  async listHostProblems(): Promise<QueueView[]> {
    // Few queues per installation, and this serves /readyz only: a walk is cheaper than an index to keep.
    return [...this.queues.values()].flatMap((doc) => (doc.view?.hostProblem ? [doc.view] : []));
  }

  async getTestRun(queueId: string, testRunId: string): Promise<TestRunView | null> {
    return this.testRuns.get(queueId, testRunId);
  }

  async reset(): Promise<void> {
    this.testRuns.reset();
    this.queues = new Map();
    this.prs = new Map();
    this.active = new Map();
    this.position = null;
  }

  async close(): Promise<void> {
    this.waiters.cancelAll();
  }
}
