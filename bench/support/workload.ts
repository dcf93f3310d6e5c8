import {
  DEFAULT_SETTINGS,
  QUEUE_EVENT_SCHEMA_VERSION,
  priorityNameOf,
  queueIdOf,
  queueStreamOf,
  type QueueEvent,
  type Readiness,
  type RepoRef,
} from '@railyard/domain';
import type { ExpectedRevision, NewEvent } from '@railyard/eventstore';
import { mulberry32 } from './mulberry32';

/**
 * A synthetic but lawful event log for the rebuild benchmark: queues, submissions, priority and
 * readiness changes, cancellations, and the engine's test runs, status reports, passes, merges and
 * failures, with several PRs of a queue in flight at once so their events interleave as in life.
 * Pure: the seed decides everything, ids included, so a run can be reproduced exactly.
 */

export interface WorkloadOptions {
  /** Exactly this many events are produced. */
  events: number;
  queues?: number;
  /** PRs of one queue between submission and their end. */
  inFlightPerQueue?: number;
  seed?: number;
  /** Time of the first event; each later group is 0–2 s after the one before. */
  start?: Date;
}

/** One append: events of one queue stream, and the revision the stream is at before it. */
export interface WorkloadAppend {
  streamId: string;
  expected: ExpectedRevision;
  events: NewEvent[];
}

type Draft = QueueEvent extends infer E ? (E extends { type: infer T; data: infer D } ? { type: T; data: Omit<D, 'at'> } : never) : never;

interface PrScript {
  /** Groups still to come; each group is appended together (e.g. TestRunStarted with its PrTestingStarted). */
  groups: Draft[][];
}

interface QueueScript {
  queueId: string;
  repo: RepoRef;
  branch: string;
  streamId: string;
  revision: ExpectedRevision;
  created: boolean;
  paused: boolean;
  nextPr: number;
  inFlight: PrScript[];
}

const READY: Readiness = {
  requiresImpactedTargets: false,
  doesBaseBranchMatch: true,
  hasImpactedTargets: false,
  mergeability: 'mergeable',
};
const CONFLICTED: Readiness = { ...READY, mergeability: 'not_mergeable' };
const CONTEXTS = ['ci/build', 'ci/test'];
const ENGINE_EVENTS = new Set([
  'TestRunStarted',
  'TestRunStatusReported',
  'TestRunSucceeded',
  'TestRunFailed',
  'TestRunTimedOut',
  'TestRunCancelled',
  'PrTestingStarted',
  'PrTestsPassed',
  'PrMerged',
  'PrFailed',
]);

export function* workload(opts: WorkloadOptions): Generator<WorkloadAppend> {
  const random = mulberry32(opts.seed ?? 1);
  const chance = (p: number) => random() < p;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const hex = (n: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += Math.floor(random() * 16).toString(16);
    return s;
  };
  const uuid = () => {
    const h = hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${pick(['8', '9', 'a', 'b'])}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };

  const queues: QueueScript[] = Array.from({ length: opts.queues ?? 20 }, (_, i) => {
    const repo = { host: 'git.bench', owner: `org${i % 5}`, name: `repo${i}` };
    const branch = i % 3 === 0 ? 'release/2025' : 'main';
    const queueId = queueIdOf(repo, branch);
    return {
      queueId,
      repo,
      branch,
      streamId: queueStreamOf(queueId),
      revision: 'no_stream',
      created: false,
      paused: false,
      nextPr: 1,
      inFlight: [],
    };
  });
  const inFlightPerQueue = opts.inFlightPerQueue ?? 8;

  const prScript = (q: QueueScript, prNumber: number): PrScript => {
    const groups: Draft[][] = [];
    groups.push([
      {
        type: 'PrSubmitted',
        data: {
          entryId: uuid(),
          prNumber,
          title: `Change ${prNumber}: ${pick(['fix', 'feat', 'chore', 'refactor'])} ${hex(6)}`,
          headSha: hex(40),
          author: pick(['ada', 'grace', 'linus', 'margaret', 'ken']),
          baseBranch: q.branch,
          priorityValue: 100,
          priorityName: 'medium',
          usedDefaultPriorityName: 'medium',
          noBatch: false,
          readiness: READY,
          state: 'pending',
          reason: 'API_REQUESTED',
        },
      },
    ]);
    if (chance(0.3)) {
      const priorityValue = pick([0, 10, 50, 200]);
      groups.push([
        { type: 'PrPriorityChanged', data: { prNumber, priorityValue, priorityName: priorityNameOf(priorityValue), noBatch: false } },
      ]);
    }
    if (chance(0.15)) {
      groups.push([
        { type: 'PrReadinessChanged', data: { prNumber, readiness: CONFLICTED, state: 'not_ready', reason: 'MERGE_ITEM_NO_LONGER_READY' } },
      ]);
      groups.push([{ type: 'PrReadinessChanged', data: { prNumber, readiness: READY, state: 'pending', reason: 'MERGE_ITEM_NOW_READY' } }]);
    }
    if (chance(0.1)) {
      groups.push([{ type: 'PrCancelled', data: { prNumber, reason: 'API_REQUESTED' } }]);
      return { groups };
    }
    const testRun = (): string => {
      const testRunId = uuid();
      groups.push([
        {
          type: 'TestRunStarted',
          data: {
            testRunId,
            testBranch: `railyard-merge/pr-${prNumber}/${testRunId}`,
            testBranchSha: hex(40),
            baseSha: hex(40),
            prNumbers: [prNumber],
            dependentPrs: [],
            requiredStatuses: CONTEXTS,
            requiredStatusesSource: 'merge_instance',
            bisection: false,
          },
        },
        { type: 'PrTestingStarted', data: { prNumber, testRunId } },
      ]);
      for (const context of CONTEXTS)
        groups.push([
          {
            type: 'TestRunStatusReported',
            data: { testRunId, context, state: 'pending', url: `https://ci.bench/${testRunId}/${context}` },
          },
        ]);
      return testRunId;
    };
    let testRunId = testRun();
    if (chance(0.05)) {
      groups.push([
        { type: 'TestRunCancelled', data: { testRunId, reason: 'TESTS_RESTARTED_BY_API_REQUEST' } },
        { type: 'TestsRestarted', data: { prNumber, reason: 'TESTS_RESTARTED_BY_API_REQUEST' } },
      ]);
      testRunId = testRun();
    }
    const outcome = random();
    if (outcome < 0.85) {
      for (const context of CONTEXTS) groups.push([{ type: 'TestRunStatusReported', data: { testRunId, context, state: 'success' } }]);
      groups.push([
        { type: 'TestRunSucceeded', data: { testRunId } },
        { type: 'PrTestsPassed', data: { prNumber, testRunId, reason: 'TEST_RUN_PASSED' } },
      ]);
      groups.push([{ type: 'PrMerged', data: { prNumber, mergeSha: hex(40), testRunId, reason: 'MERGE_GRAPH_MERGE' } }]);
    } else if (outcome < 0.95) {
      const failed = [pick(CONTEXTS)];
      groups.push([{ type: 'TestRunStatusReported', data: { testRunId, context: failed[0] as string, state: 'failure' } }]);
      groups.push([
        { type: 'TestRunFailed', data: { testRunId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: failed } },
        { type: 'PrFailed', data: { prNumber, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: `${failed[0]} failed`, testRunId } },
      ]);
    } else {
      groups.push([
        { type: 'TestRunTimedOut', data: { testRunId } },
        {
          type: 'PrFailed',
          data: { prNumber, reason: 'TEST_RUN_TIMEOUT', detail: 'no required status after the testing timeout', testRunId },
        },
      ]);
    }
    return { groups };
  };

  /** The next group of one queue: queue-level now and then, else a step of one of its PRs. */
  const nextGroup = (q: QueueScript): Draft[] => {
    if (!q.created) {
      q.created = true;
      return [
        {
          type: 'QueueCreated',
          data: { queueId: q.queueId, repo: q.repo, branch: q.branch, settings: DEFAULT_SETTINGS, requiredStatuses: [], state: 'running' },
        },
      ];
    }
    if (chance(0.002)) {
      const to = q.paused ? 'running' : 'paused';
      const from = q.paused ? 'paused' : 'running';
      q.paused = !q.paused;
      return [{ type: 'QueueStateChanged', data: { from, to } }];
    }
    if (chance(0.001)) return [{ type: 'QueueConfigUpdated', data: { changes: { concurrency: 1 + Math.floor(random() * 8) } } }];
    while (q.inFlight.length < inFlightPerQueue) q.inFlight.push(prScript(q, q.nextPr++));
    const i = Math.floor(random() * q.inFlight.length);
    const pr = q.inFlight[i] as PrScript;
    const group = pr.groups.shift() as Draft[];
    if (pr.groups.length === 0) q.inFlight.splice(i, 1);
    return group;
  };

  let clock = (opts.start ?? new Date('2025-01-01T00:00:00.000Z')).getTime();
  let left = opts.events;
  while (left > 0) {
    const q = pick(queues);
    // A queue is busy in bursts: a few of its groups go into one append, as a busy engine tick would write.
    const groupsInAppend = q.created ? 1 + Math.floor(random() * 6) : 1;
    const events: NewEvent[] = [];
    for (let g = 0; g < groupsInAppend && left > events.length; g++) {
      clock += Math.floor(random() * 2000);
      const at = new Date(clock).toISOString();
      const correlationId = uuid();
      for (const draft of nextGroup(q)) {
        if (events.length >= left) break;
        const actor = ENGINE_EVENTS.has(draft.type) ? 'engine' : 'ci';
        events.push({
          eventId: uuid(),
          type: draft.type,
          data: { ...draft.data, at },
          metadata: { schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, actor, correlationId, at },
        });
      }
    }
    left -= events.length;
    const expected = q.revision;
    q.revision = (expected === 'no_stream' ? -1 : (expected as number)) + events.length;
    yield { streamId: q.streamId, expected, events };
  }
}
