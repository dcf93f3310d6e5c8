import { isTerminal } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { AHEAD_NAMED, explainRunOf, explainViews, explainViewWith, queueAnswerJson } from '../explain';
import { prResponse } from '../views';
import type { PrView, QueueView, ReadModelStore } from '../port';
import { foldBatch, prKeyOf, targetsOfBatch, type DocSet } from '../projection/batch';
import { isCurrent, type PrDoc, type QueueDoc } from '../projection/docs';
import { isActive } from '../projection/order';
import { pageOf, type PrListPage, type PrListQuery } from '../projection/listing';
import { ActiveOrder } from './active-order';
import { MemoryTestRuns, type TestRunsSnapshot } from '../../testruns/memory/store';
import type { PagedDoc, PagedDocs, Snapshottable } from '../../memory/snapshot';
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

/** Index of the first number above `n` in `sorted`. */
const firstAbove = (sorted: number[], n: number): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) <= n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** `sorted` with PR number `n` in its place (the same array when it holds it already). */
const withNumber = (sorted: number[], n: number): number[] => {
  const at = firstAbove(sorted, n - 1);
  if (sorted[at] !== n) sorted.splice(at, 0, n);
  return sorted;
};

/** The kind of a PR document paged out of memory (D320), and how many a listing reads back at once. */
const PR = 'pr';
const PAGED_READ = 256;

/** Read models in process memory: the embedded mode (rebuilt from the event store at start) and unit tests. */
interface QueueSnapshot {
  queues: Map<string, QueueDoc>;
  prs: Map<string, PrDoc>;
  testRuns: TestRunsSnapshot;
}

export class MemoryReadModelStore implements ReadModelStore, Snapshottable {
  readonly snapshotName = 'queue';
  // Raise with any change to the documents or to how the queue and test-run projections fold them.
  // 2: the body holds only hot documents, the others are paged out beside it (D320).
  readonly snapshotSchema = 2;
  private queues = new Map<string, QueueDoc>();
  private prs = new Map<string, PrDoc>();
  /** Active PR keys per queue in queue order, so listing a queue neither walks every PR ever submitted nor sorts. */
  private active = new Map<string, ActiveOrder>();
  /** Every PR number with a document in memory, per queue, ascending (listPrs); emptied when the queue is created again. */
  private numbers = new Map<string, number[]>();
  /**
   * PR documents that left the active order and finished runs, paged out at earlier snapshots (D320):
   * memory then holds the hot state and what changed since the last snapshot, not every PR ever.
   * Memory wins over a paged copy, which is never newer. Null (unit tests): everything stays in memory.
   */
  private paged: PagedDocs | null = null;
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
    for (const key of targets.prs.keys()) docs.prs.set(key, this.prDoc(key) ?? null);
    const changes = foldBatch(docs, fresh);
    // Before the PR documents below are replaced: runs record their PRs as they were.
    this.testRuns.apply(fresh, (key) => this.prDoc(key));

    for (const id of changes.queueIds) {
      const doc = docs.queues.get(id);
      if (doc) this.queues.set(id, frozen(doc));
    }
    for (const id of changes.regenerated) {
      this.active.delete(id);
      this.numbers.delete(id);
    }
    for (const key of changes.prKeys) {
      const doc = docs.prs.get(key);
      if (!doc) continue;
      this.prs.set(key, frozen(doc));
      const queueId = doc.view.queueId;
      const order = this.active.get(queueId) ?? new ActiveOrder();
      if (isActive(this.queues.get(queueId) ?? null, doc)) order.set(key, doc.view);
      else order.delete(key);
      this.active.set(queueId, order);
      this.numbers.set(queueId, withNumber(this.numbers.get(queueId) ?? [], doc.view.prNumber));
    }
    this.position = fresh[fresh.length - 1]?.position ?? this.position;
    if (this.position !== null) this.waiters.reached(this.position);
  }

  async checkpoint(): Promise<bigint | null> {
    return this.position;
  }

  pageTo(paged: PagedDocs): void {
    this.paged = paged;
    this.testRuns.pageTo(paged);
  }

  /** The PR's document: in memory, else as paged out. */
  private prDoc(key: string): PrDoc | undefined {
    const hot = this.prs.get(key);
    if (hot || !this.paged) return hot;
    const doc = this.paged.get(PR, key) as PrDoc | undefined;
    return doc ? frozen(doc) : undefined;
  }

  /** With somewhere to page to, the PRs out of the active order leave the body and are paged out. */
  snapshot(): { position: bigint; body: QueueSnapshot; pagedOut: PagedDoc[] } | null {
    if (this.position === null) return null;
    const runs = this.testRuns.snapshot();
    if (!this.paged) return { position: this.position, body: { queues: this.queues, prs: this.prs, testRuns: runs.body }, pagedOut: [] };
    const prs = new Map<string, PrDoc>();
    const pagedOut: PagedDoc[] = runs.pagedOut;
    for (const [key, doc] of this.prs) {
      const { queueId, prNumber } = doc.view;
      if (isActive(this.queues.get(queueId) ?? null, doc)) prs.set(key, doc);
      else pagedOut.push({ kind: PR, key, group: queueId, num: prNumber, doc });
    }
    return { position: this.position, body: { queues: this.queues, prs, testRuns: runs.body }, pagedOut };
  }

  pagedOutDone(docs: readonly PagedDoc[]): void {
    for (const d of docs) {
      if (d.kind !== PR || this.prs.get(d.key) !== d.doc) continue;
      this.prs.delete(d.key);
      const numbers = this.numbers.get(d.group);
      const at = numbers ? firstAbove(numbers, d.num - 1) : -1;
      if (numbers && numbers[at] === d.num) numbers.splice(at, 1);
    }
    this.testRuns.pagedOutDone(docs);
  }

  /** The documents, frozen again; the indexes are built from them as `apply` builds them. */
  restore(position: bigint, body: unknown): void {
    const b = body as QueueSnapshot;
    const queues = new Map([...b.queues].map(([id, doc]) => [id, frozen(doc)]));
    const prs = new Map([...b.prs].map(([key, doc]) => [key, frozen(doc)]));
    const active = new Map<string, ActiveOrder>();
    const numbers = new Map<string, number[]>();
    for (const [key, doc] of prs) {
      const queueId = doc.view.queueId;
      if (isActive(queues.get(queueId) ?? null, doc)) {
        const order = active.get(queueId) ?? new ActiveOrder();
        order.set(key, doc.view);
        active.set(queueId, order);
      }
      numbers.set(queueId, withNumber(numbers.get(queueId) ?? [], doc.view.prNumber));
    }
    this.testRuns.restore(b.testRuns);
    this.queues = queues;
    this.prs = prs;
    this.active = active;
    this.numbers = numbers;
    this.position = position;
    this.waiters.reached(position);
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
    for (const key of this.active.get(queueId)?.keys() ?? []) {
      const doc = this.prs.get(key) ?? null;
      if (isActive(queue, doc)) views.push(doc.view);
    }
    return views;
  }

  async getPr(queueId: string, prNumber: number): Promise<PrView | null> {
    return this.currentPr(queueId, prNumber)?.view ?? null;
  }

  async listPrs(queueId: string, query: PrListQuery): Promise<PrListPage> {
    // A paged-out PR of the current generation has ended: a filter on a live state needs none of them.
    const paged = query.state === undefined || isTerminal(query.state);
    return pageOf(this.currentViews(queueId, query.afterPrNumber ?? -Infinity, paged), query);
  }

  /**
   * The queue's PRs of its current generation above `after`, in number order, read as the page needs
   * them: the numbers in memory merged with the paged-out ones, memory's copy first where both are.
   */
  private *currentViews(queueId: string, after: number, withPaged: boolean): Generator<PrView> {
    const queue = this.queues.get(queueId) ?? null;
    const hot = this.numbers.get(queueId) ?? [];
    let i = firstAbove(hot, after);
    let paged: { num: number; doc: unknown }[] = [];
    let j = 0;
    let pagedAfter = after;
    let pagedMore = withPaged && this.paged !== null;
    for (;;) {
      if (j === paged.length && pagedMore && this.paged) {
        paged = this.paged.range(PR, queueId, pagedAfter, PAGED_READ);
        j = 0;
        pagedMore = paged.length === PAGED_READ;
        pagedAfter = paged[paged.length - 1]?.num ?? pagedAfter;
      }
      const h = hot[i];
      const p = paged[j];
      if (h === undefined && p === undefined) return;
      let doc: PrDoc | null;
      if (h !== undefined && (p === undefined || h <= p.num)) {
        if (p?.num === h) j++;
        i++;
        doc = this.prs.get(prKeyOf(queueId, h)) ?? null;
      } else {
        j++;
        doc = p ? frozen(p.doc as PrDoc) : null;
      }
      if (isCurrent(queue, doc)) yield doc.view;
    }
  }

  /** The PR's document when it belongs to the queue as it is now. */
  private currentPr(queueId: string, prNumber: number): PrDoc | null {
    const doc = this.prDoc(prKeyOf(queueId, prNumber)) ?? null;
    return isCurrent(this.queues.get(queueId) ?? null, doc) ? doc : null;
  }

  // Built on each read: in process memory that costs what the API's own JSON write would.
  async getQueueAnswer(queueId: string): Promise<string | null> {
    const view = this.queues.get(queueId)?.view;
    if (!view) return null;
    const prs = await this.listActivePrs(queueId);
    return queueAnswerJson(view, prs, await explainViews(this, view, prs));
  }

  async getPrAnswer(queueId: string, prNumber: number): Promise<string | null> {
    const view = this.currentPr(queueId, prNumber)?.view;
    if (!view) return null;
    // The PRs ahead from the queue-ordered index: explainView's answer without listing the queue.
    const ahead = view.isCurrentlySubmittedToQueue ? this.active.get(queueId)?.ahead(prKeyOf(queueId, prNumber), AHEAD_NAMED) : null;
    const queue = this.queues.get(queueId)?.view ?? null;
    return JSON.stringify(prResponse(view, explainViewWith(queue, view, ahead ?? { count: 0, first: [] }, await explainRunOf(this, view))));
  }

  async listHostProblems(): Promise<QueueView[]> {
    // Few queues per installation, and this serves /readyz only: a walk is cheaper than an index to keep.
    return [...this.queues.values()].flatMap((doc) => (doc.view?.hostProblem ? [doc.view] : []));
  }

  async getTestRun(queueId: string, testRunId: string): Promise<TestRunView | null> {
    return this.testRuns.get(queueId, testRunId);
  }

  async reset(): Promise<void> {
    this.paged?.forget();
    this.testRuns.reset();
    this.queues = new Map();
    this.prs = new Map();
    this.active = new Map();
    this.numbers = new Map();
    this.position = null;
  }

  async close(): Promise<void> {
    this.waiters.cancelAll();
  }
}
