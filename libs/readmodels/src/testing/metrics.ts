import { randomUUID } from 'node:crypto';
import { QUEUE_EVENT_SCHEMA_VERSION, type FailReason, type MergeReason, type QueueEvent, type RestartReason } from '@railyard/domain';
import type { NewEvent } from '@railyard/eventstore';
import { NOT_READY, prCancelled, prReadinessChanged, prSubmitted, queueCreated, queueDeleted, READY } from './fixtures';

/**
 * Engine events and a scripted queue history with the metrics it must produce, shared by the unit
 * tests, the API's scrape test and the e2e test (which writes it to a real event store).
 */
export const testRunStarted = (at: string, testRunId: string, prNumbers: number[], bisection = false): QueueEvent => ({
  type: 'TestRunStarted',
  data: {
    testRunId,
    testBranch: `railyard-merge/pr-${prNumbers[0] ?? 0}/${testRunId}`,
    testBranchSha: `tested-${testRunId}`,
    baseSha: 'base',
    prNumbers,
    dependentPrs: [],
    requiredStatuses: ['ci'],
    requiredStatusesSource: 'merge_instance',
    bisection,
    at,
  },
});
export const prTestingStarted = (at: string, prNumber: number, testRunId: string): QueueEvent => ({
  type: 'PrTestingStarted',
  data: { prNumber, testRunId, at },
});
export const testRunSucceeded = (at: string, testRunId: string): QueueEvent => ({ type: 'TestRunSucceeded', data: { testRunId, at } });
export const testRunFailed = (at: string, testRunId: string): QueueEvent => ({
  type: 'TestRunFailed',
  data: { testRunId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['ci'], at },
});
export const prTestsPassed = (at: string, prNumber: number, testRunId: string): QueueEvent => ({
  type: 'PrTestsPassed',
  data: { prNumber, testRunId, reason: 'TEST_RUN_PASSED', at },
});
export const prPendingFailure = (at: string, prNumber: number, testRunId: string): QueueEvent => ({
  type: 'PrPendingFailure',
  data: { prNumber, testRunId, failedContexts: ['ci'], at },
});
export const prMerged = (at: string, prNumber: number, testRunId?: string, reason: MergeReason = 'MERGE_GRAPH_MERGE'): QueueEvent => ({
  type: 'PrMerged',
  data: { prNumber, mergeSha: `merge-${prNumber}`, ...(testRunId ? { testRunId } : {}), reason, at },
});
export const prFailed = (at: string, prNumber: number, reason: FailReason = 'TEST_RUN_REQUIRED_STATUS_FAILED'): QueueEvent => ({
  type: 'PrFailed',
  data: { prNumber, reason, detail: 'ci failed', at },
});
export const testsRestarted = (at: string, prNumber: number, reason: RestartReason = 'TESTS_RESTARTED_BY_API_REQUEST'): QueueEvent => ({
  type: 'TestsRestarted',
  data: { prNumber, reason, at },
});

// Stable: events of one minute keep the order they are listed in.
const inTimeOrder = (events: QueueEvent[]): QueueEvent[] => [...events].sort((a, b) => Date.parse(a.data.at) - Date.parse(b.data.at));

/** One PR through one run that passes and merges: start, pass, merge at the given minutes. */
const testedAndMerged = (t: (m: number) => string, pr: number, run: string, start: number, pass: number, merge: number): QueueEvent[] => [
  testRunStarted(t(start), run, [pr]),
  prTestingStarted(t(start), pr, run),
  testRunSucceeded(t(pass), run),
  prTestsPassed(t(pass), pr, run),
  prMerged(t(merge), pr, run),
];

/**
 * Minute by minute, for a queue `queueId`; `t(m)` turns a minute into the event's time. Scraped at
 * minute 90, the window covers minutes 30 to 90: PR 1 (minutes 0–13) has aged out of every "1h"
 * series but still counts in the railyard_* totals. Returned in time order, as a stream holds it.
 */
export const scriptedQueueHistory = (queueId: string, t: (minute: number) => string): QueueEvent[] =>
  inTimeOrder([
    queueCreated(queueId, t(0)),
    prSubmitted(1, t(0)),
    ...testedAndMerged(t, 1, 'r1', 2, 12, 13),
    // PR 2: tested, restarted by a user, tested again, merged: two CI runs.
    prSubmitted(2, t(35)),
    testRunStarted(t(40), 'r2', [2]),
    prTestingStarted(t(40), 2, 'r2'),
    testsRestarted(t(50), 2),
    testRunStarted(t(52), 'r3', [2]),
    prTestingStarted(t(52), 2, 'r3'),
    testRunSucceeded(t(70), 'r3'),
    prTestsPassed(t(70), 2, 'r3'),
    prMerged(t(71), 2, 'r3'),
    // PR 3: waits for mergeability, fails, is re-submitted unchanged and merges: an innocent ejection.
    prSubmitted(3, t(40), { readiness: NOT_READY }),
    prReadinessChanged(3, t(45), READY),
    testRunStarted(t(55), 'r4', [3]),
    prTestingStarted(t(55), 3, 'r4'),
    testRunFailed(t(65), 'r4'),
    prPendingFailure(t(65), 3, 'r4'),
    prFailed(t(80), 3),
    prSubmitted(3, t(82)),
    ...testedAndMerged(t, 3, 'r5', 83, 85, 86),
    // PR 4 never becomes mergeable; PR 5 is cancelled a minute after admission.
    prSubmitted(4, t(60), { readiness: NOT_READY }),
    prSubmitted(5, t(61)),
    prCancelled(5, t(62)),
    // PRs 6 and 7: their batch fails and is bisected; 7 passes alone, 6 is still being tested.
    prSubmitted(6, t(70)),
    prSubmitted(7, t(70)),
    testRunStarted(t(72), 'r6', [6, 7]),
    prTestingStarted(t(72), 6, 'r6'),
    prTestingStarted(t(72), 7, 'r6'),
    testRunFailed(t(75), 'r6'),
    testsRestarted(t(75), 6, 'BISECTION_REQUIRED'),
    testsRestarted(t(75), 7, 'BISECTION_REQUIRED'),
    testRunStarted(t(76), 'r7', [6], true),
    prTestingStarted(t(76), 6, 'r7'),
    testRunStarted(t(76), 'r8', [7], true),
    prTestingStarted(t(76), 7, 'r8'),
    testRunSucceeded(t(80), 'r8'),
    prTestsPassed(t(80), 7, 'r8'),
    prSubmitted(8, t(88)),
  ]);

/** The minute scriptedQueueHistory is meant to be scraped at. */
export const SCRAPE_MINUTE = 90;

/** A queue that existed and was deleted: it must vanish from the scrape. */
export const deletedQueueHistory = (queueId: string, t: (minute: number) => string): QueueEvent[] => [
  queueCreated(queueId, t(0)),
  prSubmitted(1, t(1)),
  prCancelled(1, t(2)),
  queueDeleted(t(3)),
];

/** What a scrape at SCRAPE_MINUTE must show for scriptedQueueHistory (bucket counts cumulative over 60…7200). */
export const EXPECTED_SCRAPE = {
  depth: 3,
  awaiting: 1,
  testing: { main: 0, bisection: 1 },
  conclusions: { merged: 2, failed: 1, cancelled: 1 },
  restarts: { main: 3, bisection: 0 },
  wait: {
    main: { count: 6, sum: 1320, buckets: [1, 5, 6, 6, 6, 6, 6, 6] },
    bisection: { count: 2, sum: 120, buckets: [2, 2, 2, 2, 2, 2, 2, 2] },
  },
  test: {
    main: { count: 6, sum: 2760, buckets: [0, 3, 5, 5, 6, 6, 6, 6] },
    bisection: { count: 1, sum: 240, buckets: [0, 1, 1, 1, 1, 1, 1, 1] },
  },
  timeInQueue: {
    merged: { count: 2, sum: 2400, buckets: [0, 1, 1, 1, 1, 2, 2, 2] },
    failed: { count: 1, sum: 2100, buckets: [0, 0, 0, 0, 0, 1, 1, 1] },
    cancelled: { count: 1, sum: 60, buckets: [1, 1, 1, 1, 1, 1, 1, 1] },
  },
  stateDuration: {
    not_ready: { count: 1, sum: 300 },
    pending: { count: 9, sum: 1500 },
    testing: { count: 7, sum: 3000 },
    tests_passed: { count: 2, sum: 120 },
    pending_failure: { count: 1, sum: 900 },
  },
  testRuns: { main: 6, bisection: 2 },
  ciRunsPerMerged: { count: 3, sum: 4, buckets: [0, 2, 3, 3, 3, 3, 3] },
  innocentEjections: 1,
  bisections: 1,
} as const;

/** The events as a writer appends them (UUID ids, metadata carrying the event's own time), for tests that fill a real store. */
export const asNewEvents = (events: readonly QueueEvent[], actor = 'engine'): NewEvent[] =>
  events.map((e) => ({
    eventId: randomUUID(),
    type: e.type,
    data: e.data,
    metadata: { schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, actor, correlationId: randomUUID(), at: e.data.at },
  }));
