import type { QueueRunState, QueueSettings } from '../config';
import type { EntryFacts } from '../entry';
import type { CommitStatusState, ConfigNotUsed } from '../events-engine';
import type { NotCountedWhy } from '../status-reporters';

/** A test run as the explanation needs it, whichever side (write state or read model) it comes from. */
export interface ExplainRun {
  testRunId: string;
  status: (typeof EXPLAINED_RUN_STATUSES)[number];
  testBranch: string;
  requiredStatuses: string[];
  /** Latest state per check, in the order they first reported. */
  statuses: { context: string; state: CommitStatusState; url?: string }[];
  failedContexts: string[];
  /** Tested PRs whose changes to the gating configuration files the run did not use. */
  configNotUsed?: ConfigNotUsed[];
  /** Statuses on the run's commit from someone not allowed to report their context: recorded, never counted. */
  notCounted?: { context: string; state: CommitStatusState; reporter?: string; why: NotCountedWhy }[];
}

/** The PR facts an explanation reads. */
export type ExplainedPr = Pick<EntryFacts, 'prNumber' | 'state' | 'headSha' | 'readiness' | 'stateReason' | 'lastTestRunId'> &
  Partial<Pick<EntryFacts, 'baseBranch'>>;

export interface ExplainQueue {
  state: QueueRunState;
  /** What sizes the queue's mergeability window (`mergeabilityWindowSize`). */
  settings: Pick<QueueSettings, 'concurrency' | 'batch' | 'batchingMinSize' | 'batchingMaxSize'>;
}

/** The active PRs ahead of this one in queue order: how many, and the first few by number. */
export interface PrsAhead {
  count: number;
  first: number[];
}

export interface ExplainInput {
  pr: ExplainedPr;
  queue: ExplainQueue;
  ahead: PrsAhead;
  /** The run `pr.lastTestRunId` names, when it is still known. */
  run?: ExplainRun;
}

export const WAITING_KINDS = [
  'queue_paused',
  'queue_draining',
  'queue_switching_modes',
  'base_branch',
  'mergeability',
  'merge_conflict',
  'impacted_targets',
  'prs_ahead',
  'engine',
  'required_statuses',
  'merge',
  'failure_confirmation',
] as const;
export type WaitingKind = (typeof WAITING_KINDS)[number];

export const EXPLAINED_RUN_STATUSES = ['testing', 'succeeded', 'failed', 'timed_out', 'cancelled'] as const;

/** One thing the PR waits for now; `checks` or `prNumbers` name what, when there is a list. */
export interface WaitingOn {
  kind: WaitingKind;
  message: string;
  checks?: string[];
  prNumbers?: number[];
}

export interface ExplainedCheck {
  name: string;
  state: CommitStatusState;
  url?: string;
}

export interface LastTestRun {
  id: string;
  status: ExplainRun['status'];
  testBranch: string;
  /** Every check reported on the run, with its log link when the CI gave one. */
  checks: ExplainedCheck[];
  failedChecks: ExplainedCheck[];
}

export const NOTE_KINDS = ['config_not_used', 'status_not_counted'] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

/** Something the PR's author should know about how its last run judged it; `files` or `checks` name what. */
export interface ExplainNote {
  kind: NoteKind;
  message: string;
  files?: string[];
  checks?: string[];
}

export interface Explanation {
  stateReason: { code: string; message: string; detail?: string; testRunId?: string };
  waitingOn: WaitingOn[];
  lastTestRun?: LastTestRun;
  /** Present only when there is something to say. */
  notes?: ExplainNote[];
}
