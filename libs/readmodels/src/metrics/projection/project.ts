import { entryStateAfter, isTerminal, parseQueueId, type PrState, type QueueEvent } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { asQueueEvent, targetOf, timeOf } from '../../events/queue-event';
import {
  CI_RUN_BUCKETS,
  FLAKE_RETRY_BUCKETS,
  METRICS_WINDOW_MS,
  type FailedPr,
  type LiveEntry,
  type LogKind,
  type QueueMetricsDoc,
  type QueueType,
} from './model';
import { entriesInDoc, type LiveEntries } from './entries';
import { fieldsInDoc, type KeptFields } from './kept-fields';

// A failure older than this no longer turns a later merge into an "innocent ejection".
const FAILURE_MEMORY_MS = 30 * 24 * 60 * 60 * 1000;
// Runs are forgotten when they end; the cap only matters if an engine never ends some of them.
const MAX_TRACKED_RUNS = 1000;
const MAX_BISECTED_RUNS = 64;
const RESTARTED_FROM: ReadonlySet<PrState> = new Set(['testing', 'tests_passed', 'pending_failure']);

const eventTime = (event: RecordedEvent): number => {
  const t = Date.parse(timeOf(event));
  return Number.isNaN(t) ? Date.parse(event.recordedAt) : t;
};

export const emptyMetricsDoc = (queueId: string, position: string): QueueMetricsDoc => {
  const { repo, branch } = parseQueueId(queueId);
  return {
    queueId,
    repo,
    branch,
    entries: {},
    runs: {},
    log: [],
    totals: {
      testRuns: { main: 0, bisection: 0 },
      ciRunsPerMerged: { cumulative: CI_RUN_BUCKETS.map(() => 0), sum: 0, count: 0 },
      innocentEjections: 0,
      bisections: 0,
    },
    failed: {},
    bisectedRuns: [],
    position,
  };
};

const record = (doc: QueueMetricsDoc, at: number, kind: LogKind, label: string, seconds = 0): void => {
  doc.log.push([at, kind, label, seconds]);
};

const prune = (doc: QueueMetricsDoc, newest: number): void => {
  const horizon = newest - METRICS_WINDOW_MS;
  let drop = 0;
  while (drop < doc.log.length && (doc.log[drop]?.[0] ?? Infinity) < horizon) drop += 1;
  if (drop > 0) doc.log.splice(0, drop);
};

const secondsBetween = (from: number, to: number): number => Math.max(0, (to - from) / 1000);

/** Moves an entry to `next`, logging the durations and counts that transition ends or makes. */
const move = (
  doc: QueueMetricsDoc,
  entries: LiveEntries,
  key: string,
  entry: LiveEntry,
  next: PrState,
  at: number,
  event: QueueEvent,
  startingType: QueueType,
): void => {
  if (next === entry.state) return;
  record(doc, at, 's', entry.state, secondsBetween(entry.since, at));
  if (entry.state === 'pending' && next === 'testing') record(doc, at, 'w', startingType, secondsBetween(entry.since, at));
  if (entry.state === 'testing') record(doc, at, 't', entry.queueType, secondsBetween(entry.since, at));
  if (next === 'pending' && event.type === 'TestsRestarted' && RESTARTED_FROM.has(entry.state)) record(doc, at, 'r', entry.queueType);
  if (isTerminal(next)) {
    record(doc, at, 'c', next);
    if (entry.admittedAt !== undefined) record(doc, at, 'q', next, secondsBetween(entry.admittedAt, at));
    entries.delete(key);
    return;
  }
  const admittedAt = entry.admittedAt ?? (next === 'pending' ? at : undefined);
  entries.set(key, { ...entry, state: next as LiveEntry['state'], since: at, ...(admittedAt === undefined ? {} : { admittedAt }) });
};

const observeCiRuns = (doc: QueueMetricsDoc, runs: number): void => {
  const h = doc.totals.ciRunsPerMerged;
  CI_RUN_BUCKETS.forEach((bound, i) => {
    if (runs <= bound) h.cumulative[i] = (h.cumulative[i] ?? 0) + 1;
  });
  h.sum += runs;
  h.count += 1;
};

/** How many flake re-runs a merged PR took (docs/metrics.md): its share of the CI a flake costs. */
const observeRetries = (doc: QueueMetricsDoc, retries: number): void => {
  const h = (doc.totals.flakeRetriesPerMerged ??= { cumulative: FLAKE_RETRY_BUCKETS.map(() => 0), sum: 0, count: 0 });
  FLAKE_RETRY_BUCKETS.forEach((bound, i) => {
    if (retries <= bound) h.cumulative[i] = (h.cumulative[i] ?? 0) + 1;
  });
  h.sum += retries;
  h.count += 1;
};

const rememberFailure = (failed: FailedPrs, key: string, entry: LiveEntry, at: number): void => {
  failed.forgetBefore(at - FAILURE_MEMORY_MS);
  const previous = failed.get(key);
  const failures = previous && previous.headSha === entry.headSha ? previous.failures + 1 : 1;
  failed.set(key, { headSha: entry.headSha, failures, at });
};

const countInnocentEjections = (doc: QueueMetricsDoc, failed: FailedPrs, key: string, entry: LiveEntry): void => {
  const previous = failed.get(key);
  if (previous && previous.headSha === entry.headSha) doc.totals.innocentEjections += previous.failures;
  failed.delete(key);
};

const countBisection = (doc: QueueMetricsDoc, testRunId: string | undefined): void => {
  if (!testRunId || doc.bisectedRuns.includes(testRunId)) return;
  doc.totals.bisections += 1;
  doc.bisectedRuns.push(testRunId);
  if (doc.bisectedRuns.length > MAX_BISECTED_RUNS) doc.bisectedRuns.shift();
};

const trackRun = (doc: QueueMetricsDoc, testRunId: string, type: QueueType): void => {
  doc.runs[testRunId] = type;
  doc.totals.testRuns[type] += 1;
  const ids = Object.keys(doc.runs);
  for (let i = 0; i < ids.length - MAX_TRACKED_RUNS; i++) delete doc.runs[ids[i] as string];
};

/** Where a queue's failed PRs are kept while a fold reads and changes them (kept-fields.ts, D312). */
export interface FailedPrs extends KeptFields<FailedPr> {
  /** Forgets every failure that happened before `horizon` (epoch ms). */
  forgetBefore(horizon: number): void;
}

/** The document's own `failed` map as FailedPrs. */
export const failedInDoc = (doc: QueueMetricsDoc): FailedPrs => ({
  ...fieldsInDoc(
    () => doc.failed,
    () => void (doc.failed = {}),
  ),
  forgetBefore: (horizon) => {
    for (const [pr, f] of Object.entries(doc.failed)) if (f.at < horizon) delete doc.failed[pr];
  },
});

/**
 * The parts of a queue a store keeps apart from its document, loaded for what a batch names: failed
 * PRs (D312) and live entries (D337). Absent, a fold uses the document's own maps.
 */
export interface KeptApart {
  failed(queueId: string): FailedPrs;
  entries(queueId: string): LiveEntries;
}

/** The key (PR number) of the failed-PR record an event may read or change, if any. */
export const failedPrKeyOf = (event: RecordedEvent): string | undefined => {
  if (event.type !== 'PrSubmitted' && event.type !== 'PrMerged' && event.type !== 'PrFailed') return undefined;
  const prNumber = (event.data as { prNumber?: unknown }).prNumber;
  return typeof prNumber === 'number' ? String(prNumber) : undefined;
};

/**
 * Folds one event into its queue's metrics document and returns it, or null once the queue is
 * deleted. It MUTATES the document it is given (a busy queue's log is long and copying it per event
 * would dominate): callers pass a copy they own, as foldMetricsBatch does. Events at or below the
 * document's position are skipped.
 */
export const foldMetricsEvent = (doc: QueueMetricsDoc | null, event: RecordedEvent, apart?: KeptApart): QueueMetricsDoc | null => {
  const target = targetOf(event);
  if (!target || (doc && event.position <= BigInt(doc.position))) return doc;
  const position = event.position.toString();
  const e = asQueueEvent(event);
  if (e.type === 'QueueCreated' || e.type === 'QueueDeleted') {
    apart?.failed(target.queueId).clear();
    apart?.entries(target.queueId).clear();
  }
  if (e.type === 'QueueCreated') return emptyMetricsDoc(target.queueId, position);
  if (!doc || e.type === 'QueueDeleted') return null;
  const failed = apart ? apart.failed(target.queueId) : failedInDoc(doc);
  const entries = apart ? apart.entries(target.queueId) : entriesInDoc(doc);

  const at = eventTime(event);
  switch (e.type) {
    case 'TestRunStarted':
      trackRun(doc, e.data.testRunId, e.data.bisection ? 'bisection' : 'main');
      if (e.data.retry) doc.totals.flakeRetries = (doc.totals.flakeRetries ?? 0) + 1;
      break;
    case 'TestRunSucceeded':
    case 'TestRunFailed':
    case 'TestRunTimedOut':
    case 'TestRunCancelled':
      delete doc.runs[e.data.testRunId];
      break;
    case 'PrSubmitted': {
      const d = e.data;
      const key = String(d.prNumber);
      entries.set(key, {
        state: d.state,
        since: at,
        ...(d.state === 'pending' ? { admittedAt: at } : {}),
        queueType: 'main',
        runs: 0,
        headSha: d.headSha,
      });
      const previous = failed.get(key);
      if (previous && previous.headSha !== d.headSha) failed.delete(key);
      break;
    }
    default:
      break;
  }

  const moved = e.type === 'PrSubmitted' ? undefined : entryStateAfter(e);
  const key = moved ? String(moved.prNumber) : '';
  const entry = moved ? entries.get(key) : undefined;
  if (moved && entry) {
    let startingType = entry.queueType;
    if (e.type === 'PrTestingStarted') startingType = doc.runs[e.data.testRunId] ?? 'main';
    if (e.type === 'TestsRestarted' && e.data.reason === 'BISECTION_REQUIRED') countBisection(doc, entry.testRunId);
    if (e.type === 'PrMerged') {
      observeCiRuns(doc, entry.runs);
      observeRetries(doc, entry.retries ?? 0);
      countInnocentEjections(doc, failed, key, entry);
    }
    if (e.type === 'PrFailed') rememberFailure(failed, key, entry, at);
    move(doc, entries, key, entry, moved.state, at, e, startingType);
    const after = entries.get(key);
    if (e.type === 'TestsRestarted' && e.data.reason === 'FLAKE_RETRY' && after)
      entries.set(key, { ...after, retries: (after.retries ?? 0) + 1 });
    if (e.type === 'PrTestingStarted' && after)
      entries.set(key, { ...after, testRunId: e.data.testRunId, queueType: startingType, runs: after.runs + 1 });
  }

  prune(doc, at);
  doc.position = position;
  return doc;
};
