import { QUEUE_STREAM_PREFIX, type QueueEvent, type TestRunStarted } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { prKeyOf, type PrRef } from '../../queue/projection/batch';
import { positionOf } from '../../queue/projection/docs';
import { asQueueEvent, timeOf } from '../../events/queue-event';
import type { PrFacts, PrTargetsDoc, TestRunDoc, TestRunOutcome, TestRunPr, TestRunStatus, TestRunView } from './docs';

export const testRunKeyOf = (queueId: string, testRunId: string): string => `${queueId}\u0000${testRunId}`;

export interface TestRunRef {
  queueId: string;
  testRunId: string;
}

/** The documents a batch needs loaded: runs it touches, and the PRs (facts and targets) runs start with. */
export interface TestRunRefs {
  runs: Map<string, TestRunRef>;
  targets: Map<string, PrRef>;
  prs: Map<string, PrRef>;
}

/** Loaded documents (null when absent); `prs` is scratch that the fold keeps current through the batch. */
export interface TestRunDocSet {
  runs: Map<string, TestRunDoc | null>;
  targets: Map<string, PrTargetsDoc | null>;
  prs: Map<string, PrFacts | null>;
}

export interface TestRunChanges {
  runs: Set<string>;
  targets: Set<string>;
}

// Same bound as the write side: a PR's older heads are kept a while, in case a push is reverted.
const TARGET_SHAS_KEPT = 8;

const queueIdOf = (event: RecordedEvent): string | undefined =>
  event.streamId.startsWith(QUEUE_STREAM_PREFIX) ? event.streamId.slice(QUEUE_STREAM_PREFIX.length) : undefined;

const runIdOf = (e: QueueEvent): string | undefined => {
  switch (e.type) {
    case 'TestRunStarted':
    case 'TestRunStatusReported':
    case 'TestRunStatusNotCounted':
    case 'TestRunSucceeded':
    case 'TestRunFailed':
    case 'TestRunTimedOut':
    case 'TestRunCancelled':
      return e.data.testRunId;
    default:
      return undefined;
  }
};

const prsOf = (e: TestRunStarted): number[] => [...e.data.prNumbers, ...e.data.dependentPrs];

export const testRunRefsOf = (events: readonly RecordedEvent[]): TestRunRefs => {
  const refs: TestRunRefs = { runs: new Map(), targets: new Map(), prs: new Map() };
  for (const event of events) {
    const queueId = queueIdOf(event);
    if (queueId === undefined) continue;
    const e = asQueueEvent(event);
    const testRunId = runIdOf(e);
    if (testRunId !== undefined) refs.runs.set(testRunKeyOf(queueId, testRunId), { queueId, testRunId });
    const prNumbers = e.type === 'TestRunStarted' ? prsOf(e) : e.type === 'ImpactedTargetsSet' ? [e.data.prNumber] : [];
    for (const prNumber of prNumbers) {
      const key = prKeyOf(queueId, prNumber);
      refs.targets.set(key, { queueId, prNumber });
      if (e.type === 'TestRunStarted') refs.prs.set(key, { queueId, prNumber });
    }
  }
  return refs;
};

/**
 * Folds a batch, in order, into the test-run documents (which must hold every target of
 * testRunRefsOf) and says which changed. Events at or below a document's position leave it as it
 * is, so replays are harmless. A run copies, when it starts, the title, head and targets of each of
 * its PRs: the details of an old run do not change when a PR is pushed or re-submitted later.
 */
export const foldTestRuns = (docs: TestRunDocSet, events: readonly RecordedEvent[]): TestRunChanges => {
  const changes: TestRunChanges = { runs: new Set(), targets: new Set() };
  for (const event of events) {
    const queueId = queueIdOf(event);
    if (queueId === undefined) continue;
    const e = asQueueEvent(event);
    const position = event.position.toString();
    const at = timeOf(event);
    if (e.type === 'PrSubmitted') {
      docs.prs.set(prKeyOf(queueId, e.data.prNumber), { title: e.data.title, headSha: e.data.headSha });
      continue;
    }
    if (e.type === 'ImpactedTargetsSet') {
      const key = prKeyOf(queueId, e.data.prNumber);
      const doc = docs.targets.get(key) ?? null;
      if (event.position <= positionOf(doc)) continue;
      const { headSha, digest, count, all } = e.data;
      const bySha = (doc?.bySha ?? []).filter(([sha]) => sha !== headSha);
      bySha.push([headSha, { digest, count, all }]);
      docs.targets.set(key, { bySha: bySha.slice(-TARGET_SHAS_KEPT), position });
      changes.targets.add(key);
      continue;
    }
    const testRunId = runIdOf(e);
    if (testRunId === undefined) continue;
    const key = testRunKeyOf(queueId, testRunId);
    const doc = docs.runs.get(key) ?? null;
    if (event.position <= positionOf(doc)) continue;
    const view = e.type === 'TestRunStarted' ? startedView(queueId, e, docs, at) : doc ? nextView(doc.view, e, at) : null;
    if (!view) continue;
    docs.runs.set(key, { view, position });
    changes.runs.add(key);
  }
  return changes;
};

const startedView = (queueId: string, e: TestRunStarted, docs: TestRunDocSet, at: string): TestRunView => {
  const d = e.data;
  const prOf = (prNumber: number): TestRunPr => {
    const key = prKeyOf(queueId, prNumber);
    const facts = docs.prs.get(key) ?? null;
    const headSha = facts?.headSha ?? '';
    const targets = docs.targets.get(key)?.bySha.find(([sha]) => sha === headSha)?.[1];
    return { prNumber, title: facts?.title ?? '', headSha, ...(targets ? { targets: { ...targets } } : {}) };
  };
  return {
    queueId,
    testRunId: d.testRunId,
    testBranch: d.testBranch,
    testBranchSha: d.testBranchSha,
    baseSha: d.baseSha,
    testedPrs: d.prNumbers.map(prOf),
    dependentPrs: d.dependentPrs.map(prOf),
    requiredStatuses: [...d.requiredStatuses],
    requiredStatusesSource: d.requiredStatusesSource,
    bisection: d.bisection,
    status: 'in_progress',
    statuses: [],
    ...(d.configNotUsed ? { configNotUsed: d.configNotUsed.map((x) => ({ prNumber: x.prNumber, files: [...x.files] })) } : {}),
    createdAt: at,
    updatedAt: at,
  };
};

const ended = (view: TestRunView, status: TestRunStatus, outcome: TestRunOutcome): TestRunView =>
  view.outcome ? { ...view, updatedAt: outcome.at } : { ...view, status, outcome, updatedAt: outcome.at };

const nextView = (view: TestRunView, e: QueueEvent, at: string): TestRunView | null => {
  switch (e.type) {
    case 'TestRunStatusReported': {
      const { context, state, url } = e.data;
      const reported = { context, state, ...(url ? { url } : {}), at };
      const known = view.statuses.some((s) => s.context === context);
      const statuses = known ? view.statuses.map((s) => (s.context === context ? reported : s)) : [...view.statuses, reported];
      return { ...view, statuses, updatedAt: at };
    }
    case 'TestRunStatusNotCounted': {
      const { context, state, url, reporter, why } = e.data;
      const seen = { context, state, ...(url ? { url } : {}), ...(reporter ? { reporter } : {}), why, at };
      const others = (view.notCounted ?? []).filter((s) => s.context !== context || s.reporter !== reporter);
      return { ...view, notCounted: [...others, seen], updatedAt: at };
    }
    case 'TestRunSucceeded':
      return ended(view, 'succeeded', { kind: 'succeeded', at });
    case 'TestRunFailed':
      return ended(view, 'failed', { kind: 'failed', reason: e.data.reason, failedContexts: [...e.data.failedContexts], at });
    // The API's run status has no "timed out": a timeout is a failure there, as in Trunk's.
    case 'TestRunTimedOut':
      return ended(view, 'failed', { kind: 'timed_out', reason: 'TEST_RUN_TIMEOUT', at });
    case 'TestRunCancelled':
      return ended(view, 'cancelled', { kind: 'cancelled', reason: e.data.reason, at });
    default:
      return null;
  }
};
