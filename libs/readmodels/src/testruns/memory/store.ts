import type { RecordedEvent } from '@railyard/eventstore';
import type { PrDoc } from '../../queue/projection/docs';
import type { PrTargetsDoc, TestRunDoc, TestRunView } from '../projection/docs';
import { foldTestRuns, testRunKeyOf, testRunRefsOf, type TestRunDocSet } from '../projection/project';

export interface TestRunsSnapshot {
  runs: Map<string, TestRunDoc>;
  targets: Map<string, PrTargetsDoc>;
}

/** The test-run models of MemoryReadModelStore; folded in the same synchronous turn as its other models. */
export class MemoryTestRuns {
  private runs = new Map<string, TestRunDoc>();
  private targets = new Map<string, PrTargetsDoc>();

  /** `prDoc` answers the PR documents as they were before this batch. */
  apply(events: readonly RecordedEvent[], prDoc: (key: string) => PrDoc | undefined): void {
    const refs = testRunRefsOf(events);
    const docs: TestRunDocSet = { runs: new Map(), targets: new Map(), prs: new Map() };
    for (const key of refs.runs.keys()) docs.runs.set(key, this.runs.get(key) ?? null);
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
    const doc = this.runs.get(testRunKeyOf(queueId, testRunId));
    return doc ? structuredClone(doc.view) : null;
  }

  reset(): void {
    this.runs = new Map();
    this.targets = new Map();
  }

  /** The documents as they are, for the queue store's snapshot (memory/snapshot.ts). */
  snapshot(): TestRunsSnapshot {
    return { runs: this.runs, targets: this.targets };
  }

  restore(body: TestRunsSnapshot): void {
    this.runs = body.runs;
    this.targets = body.targets;
  }
}
