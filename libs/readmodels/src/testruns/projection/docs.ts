import type { CommitStatusState, ConfigNotUsed, NotCountedWhy, RequiredStatusesSource, TargetsRef } from '@railyard/domain';

export type TestRunStatus = 'in_progress' | 'succeeded' | 'failed' | 'cancelled';

/** A PR of a run as it was when the run started: its title, the head that was tested, its impacted targets. */
export interface TestRunPr {
  prNumber: number;
  title: string;
  headSha: string;
  /** The upload for that head, when there was one. */
  targets?: TargetsRef;
}

export interface TestRunReportedStatus {
  context: string;
  state: CommitStatusState;
  url?: string;
  at: string;
}

export interface TestRunNotCountedStatus {
  context: string;
  state: CommitStatusState;
  url?: string;
  reporter?: string;
  why: NotCountedWhy;
  at: string;
}

export interface TestRunOutcome {
  kind: 'succeeded' | 'failed' | 'timed_out' | 'cancelled';
  reason?: string;
  failedContexts?: string[];
  at: string;
}

/** One test run as getMergeQueueTestingDetails shows it; kept after the run ends and after its queue is deleted. */
export interface TestRunView {
  queueId: string;
  testRunId: string;
  testBranch: string;
  testBranchSha: string;
  baseSha: string;
  testedPrs: TestRunPr[];
  /** PRs ahead merged into the test branch to form the predicted base; not tested by this run. */
  dependentPrs: TestRunPr[];
  requiredStatuses: string[];
  requiredStatusesSource: RequiredStatusesSource;
  bisection: boolean;
  status: TestRunStatus;
  /** Set by the first event that ends the run; later ones change nothing. */
  outcome?: TestRunOutcome;
  /** Latest status per context, in the order contexts first reported. */
  statuses: TestRunReportedStatus[];
  /** Tested PRs whose changes to the gating configuration files the run did not use (it used its base's). */
  configNotUsed?: ConfigNotUsed[];
  /** Statuses on the run's commit that did not count (who reported them may not), the latest per context and reporter. */
  notCounted?: TestRunNotCountedStatus[];
  createdAt: string;
  updatedAt: string;
}

export interface TestRunDoc {
  view: TestRunView;
  /** Position of the last event folded in (decimal string). */
  position: string;
}

/** Impacted-target uploads of one PR per head sha, so a run starting later can record the one it tests. */
export interface PrTargetsDoc {
  bySha: [string, TargetsRef][];
  position: string;
}

/** What a run needs to know of a PR that is not in its own events. */
export interface PrFacts {
  title: string;
  headSha: string;
}
