import type { UploadStats } from '../junit/upload-stats';

export type TestStatus = 'HEALTHY' | 'FLAKY' | 'BROKEN';

/** Outcome of a test in one upload; `flaky` = failed then passed on a retry inside that run. */
export type RunOutcome = 'passed' | 'failed' | 'flaky' | 'skipped';

/** One run of one test: what a JUnit upload said about it, plus where the upload came from. */
export interface TestRun {
  /** ISO 8601; when the upload was received (or the run's own timestamp if trusted). */
  at: string;
  commitSha: string;
  /** Git tree SHA: the same code under another commit (rebase, merge-queue commit) still matches. */
  treeSha?: string;
  branch: string;
  prNumber?: number;
  /** CI job name or URL; shown in reasons and, optionally, part of the same-commit rule. */
  ciJob?: string;
  outcome: RunOutcome;
  /** Counts of the whole upload this run came from; lets the outage guard drop mass failures. */
  upload?: UploadStats;
  /**
   * Who uploaded it (`local-ci`, `token:<name>`): whether it counts as evidence for a quarantine
   * depends on it (quarantine/evidence-reporters.ts). Absent for uploads recorded before uploaders were.
   */
  reporter?: string;
}

export type MonitorName = 'pass_on_retry' | 'failure_rate' | 'broken_rate' | 'consecutive_failures' | 'broken_on_pull_requests';

/** A monitor was active from `from` until `to` (null = still active). Times are epoch ms. */
export interface Activation {
  monitor: MonitorName;
  status: Exclude<TestStatus, 'HEALTHY'>;
  from: number;
  to: number | null;
  reason: string;
}

export interface ActiveMonitor {
  monitor: MonitorName;
  status: Exclude<TestStatus, 'HEALTHY'>;
  since: string;
  reason: string;
}

export interface Classification {
  status: TestStatus;
  /** Short machine-readable prefix (`monitor:`) then human text. */
  reason: string;
  /** ISO 8601 start of the current status; for a test never flagged, its first run; null with no runs. */
  since: string | null;
  /** Every monitor active at `now`, most severe first. */
  monitors: ActiveMonitor[];
}
