import type { RecordedEvent } from '@railyard/eventstore';
import type { PrDoc } from '../../queue/projection/docs';
import type { PrTargetsDoc, TestRunDoc, TestRunView } from '../projection/docs';
import { foldTestRuns, testRunKeyOf, testRunRefsOf, type TestRunDocSet } from '../projection/project';
import type { PagedDoc, PagedDocs } from '../../memory/snapshot';

/** The kind of a finished run's document paged out of memory (D320). */
const RUN = 'run';

export interface TestRunsSnapshot {
  runs: Map<string, TestRunDoc>;
  targets: Map<string, PrTargetsDoc>;
}

/** The test-run models of MemoryReadModelStore; folded in the same synchronous turn as its other models. */
export class MemoryTestRuns {
  private runs = new Map<string, TestRunDoc>();
  private targets = new Map<string, PrTargetsDoc>();
  /** Finished runs paged out at earlier snapshots; null keeps every run in memory. */
  private paged: PagedDocs | null = null;

  pageTo(paged: PagedDocs): void {
    this.paged = paged;
  }

  private doc(key: string): TestRunDoc | undefined {
    return this.runs.get(key) ?? (this.paged?.get(RUN, key) as TestRunDoc | undefined);
  }

  /** `prDoc` answers the PR documents as they were before this batch. */
  apply(events: readonly RecordedEvent[], prDoc: (key: string) => PrDoc | undefined): void {
    const refs = testRunRefsOf(events);
    const docs: TestRunDocSet = { runs: new Map(), targets: new Map(), prs: new Map() };
    for (const key of refs.runs.keys()) docs.runs.set(key, this.doc(key) ?? null);
    for (const key of refs.targets.keys()) docs.targets.set(key, this.targets.get(key) ?? null);
    for (const key of refs.prs.keys()) {
      const view = prDoc(key)?.view;
      docs.prs.set(key, view ? { title: view.prTitle, headSha: view.prSha } : null);
    }
    const changes = foldTestRuns(docs, events);
    for (const key of changes.runs) {
      const doc = docs.runs.get(key);
      if (doc) this.runs.set(key, doc);
    }
    for (const key of changes.targets) {
      const doc = docs.targets.get(key);
      if (doc) this.targets.set(key, doc);
    }
  }

  get(queueId: string, testRunId: string): TestRunView | null {
    const key = testRunKeyOf(queueId, testRunId);
    const hot = this.runs.get(key);
    if (hot) return structuredClone(hot.view);
    // Read back from the file: a copy of its own already.
    return (this.paged?.get(RUN, key) as TestRunDoc | undefined)?.view ?? null;
  }

  reset(): void {
    this.runs = new Map();
    this.targets = new Map();
  }

  /**
   * The documents as they are, for the queue store's snapshot (memory/snapshot.ts); with somewhere to
   * page to, finished runs (which later events rarely touch) leave the body and are paged out.
   */
  snapshot(): { body: TestRunsSnapshot; pagedOut: PagedDoc[] } {
    if (!this.paged) return { body: { runs: this.runs, targets: this.targets }, pagedOut: [] };
    const runs = new Map<string, TestRunDoc>();
    const pagedOut: PagedDoc[] = [];
    for (const [key, doc] of this.runs) {
      if (doc.view.status === 'in_progress') runs.set(key, doc);
      else pagedOut.push({ kind: RUN, key, group: doc.view.queueId, num: 0, doc });
    }
    return { body: { runs, targets: this.targets }, pagedOut };
  }

  /** Drops the paged-out runs that no event changed since their snapshot was taken. */
  pagedOutDone(docs: readonly PagedDoc[]): void {
    for (const d of docs) if (d.kind === RUN && this.runs.get(d.key) === d.doc) this.runs.delete(d.key);
  }

  restore(body: TestRunsSnapshot): void {
    this.runs = body.runs;
    this.targets = body.targets;
  }
}
