import { entryStateAfter, type PrState, type PrSubmitted, type QueueEvent, type Readiness } from './events';
import type { PriorityName } from './priority';

/**
 * Why an entry is in its state: the reason code of the event that last moved it (Trunk's reason
 * vocabulary, upper case), its detail and the run it names. The sentence is made from it
 * when the state is explained (explain/), so stored documents never hold prose.
 */
export interface StateReason {
  code: string;
  detail?: string;
  testRunId?: string;
  /** The checks that failed, when the event names them (PrPendingFailure). */
  failedContexts?: string[];
}

/**
 * What the write side's state and the read side's PR document both know of one entry: everything an
 * event about that PR alone says. The write side adds its scheduling fields (state.ts `Entry`).
 */
export interface EntryFacts {
  entryId: string;
  prNumber: number;
  title: string;
  headSha: string;
  author: string;
  baseBranch: string;
  /** The branch the PR came from at its last submission, when the host named it. */
  headBranch?: string;
  /** Read-only here and for `state`, `seq` and `flightSeq`: the entry map files entries by them (entry-order.ts); change them by setting a new entry. */
  readonly priorityValue: number;
  priorityName: PriorityName;
  usedDefaultPriorityName?: PriorityName;
  noBatch: boolean;
  forceEnqueued: boolean;
  readonly state: PrState;
  stateChangedAt: string;
  stateReason?: StateReason;
  submittedAt: string;
  /** Submission order; FIFO within a priority level. */
  readonly seq: number;
  readiness: Readiness;
  /** The last run that tested or decided this PR; kept after it ended, so a failure can name it. */
  lastTestRunId?: string;
}

/** The reason code an event gives for the state it moves its PR to; undefined when it moves none. */
export const stateReasonOf = (event: QueueEvent): StateReason | undefined => {
  switch (event.type) {
    case 'PrSubmitted':
    case 'PrReadinessChanged':
    case 'PrCancelled':
    case 'TestsRestarted':
      return { code: event.data.reason };
    case 'PrTestingStarted':
      return { code: 'TEST_RUN_STARTED', testRunId: event.data.testRunId };
    case 'PrTestsPassed':
      return { code: event.data.reason, testRunId: event.data.testRunId };
    case 'PrPendingFailure':
      return { code: 'TEST_RUN_FAILED', testRunId: event.data.testRunId, failedContexts: [...event.data.failedContexts] };
    case 'PrMerged':
      return { code: event.data.reason, ...(event.data.testRunId !== undefined ? { testRunId: event.data.testRunId } : {}) };
    case 'PrFailed':
      return {
        code: event.data.reason,
        ...(event.data.detail ? { detail: event.data.detail } : {}),
        ...(event.data.testRunId !== undefined ? { testRunId: event.data.testRunId } : {}),
      };
    default:
      return undefined;
  }
};

/** The entry a submission creates, `seq` being the queue's next submission number. */
export const submittedEntry = (event: PrSubmitted, seq: number): EntryFacts => {
  const d = event.data;
  return {
    entryId: d.entryId,
    prNumber: d.prNumber,
    title: d.title,
    headSha: d.headSha,
    author: d.author,
    baseBranch: d.baseBranch,
    ...(d.headBranch ? { headBranch: d.headBranch } : {}),
    priorityValue: d.priorityValue,
    priorityName: d.priorityName,
    ...(d.usedDefaultPriorityName ? { usedDefaultPriorityName: d.usedDefaultPriorityName } : {}),
    noBatch: d.noBatch,
    forceEnqueued: false,
    state: d.state,
    stateChangedAt: d.at,
    stateReason: { code: d.reason },
    submittedAt: d.at,
    seq,
    readiness: { ...d.readiness },
  };
};

const lastRunOf = (event: QueueEvent): string | undefined => {
  switch (event.type) {
    case 'PrTestingStarted':
    case 'PrTestsPassed':
    case 'PrPendingFailure':
    case 'PrMerged':
    case 'PrFailed':
      return event.data.testRunId;
    default:
      return undefined;
  }
};

// A failure blamed after a pending failure names the same run: it keeps the checks that run failed on.
const carriedChecks = (before: StateReason | undefined, after: StateReason | undefined): StateReason | undefined =>
  after && !after.failedContexts && before?.failedContexts && after.testRunId !== undefined && before.testRunId === after.testRunId
    ? { ...after, failedContexts: before.failedContexts }
    : after;

/**
 * Folds an event about this entry's PR into its facts (other events return it unchanged). The write
 * side's evolve and the read side's PR projection both call it, so they cannot disagree; fields the
 * caller keeps beside the facts are carried through untouched. The time and the reason move only
 * when the state does.
 */
export const evolveEntry = <E extends EntryFacts>(entry: E, event: QueueEvent): E => {
  let e = entry;
  if (event.type === 'PrPriorityChanged' && event.data.prNumber === e.prNumber) {
    const { usedDefaultPriorityName: _previous, ...rest } = e;
    const d = event.data;
    e = {
      ...rest,
      priorityValue: d.priorityValue,
      priorityName: d.priorityName,
      ...(d.usedDefaultPriorityName ? { usedDefaultPriorityName: d.usedDefaultPriorityName } : {}),
      noBatch: d.noBatch,
    } as E;
  }
  if (event.type === 'PrReadinessChanged' && event.data.prNumber === e.prNumber) e = { ...e, readiness: { ...event.data.readiness } };
  const moved = entryStateAfter(event);
  if (!moved || moved.prNumber !== e.prNumber || event.type === 'PrSubmitted') return e;
  const run = lastRunOf(event);
  if (run !== undefined && run !== e.lastTestRunId) e = { ...e, lastTestRunId: run };
  if (moved.state === e.state) return e;
  const reason = carriedChecks(e.stateReason, stateReasonOf(event));
  return { ...e, state: moved.state, stateChangedAt: event.data.at, ...(reason ? { stateReason: reason } : {}) };
};
