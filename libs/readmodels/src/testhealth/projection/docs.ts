import type { ActiveMonitor, FailureCount, RepoRef, RunOutcome, TestRun, TestStatus } from '@railyard/testhealth';

/** Everything the list endpoints, the CI check and the evaluator read about one test. */
export interface TestDoc {
  repo: RepoRef;
  repoId: string;
  id: string;
  name: string;
  classname: string;
  file: string;
  parent: string;
  variant: string;
  firstSeenAt: string;
  lastSeenAt: string;
  /** Time of the last upload in which the test ended failed or flaky; null when it never did. */
  lastFailedAt: string | null;
  status: TestStatus;
  reason: string;
  /** Start of the current status (the spec's status.timestamp). */
  since: string;
  /** When the status record last changed (status_last_updated_at). */
  statusUpdatedAt: string;
  monitors: ActiveMonitor[];
  pullRequestsImpactedLast7d: number;
  /** Its FLAKY status holds without the runs of any single pull request (docs/test-health.md §4); needed for auto-quarantine. */
  corroborated: boolean;
  override: 'always' | 'never' | null;
  overrideAt: string | null;
  overrideBy: string | null;
  quarantined: boolean;
  quarantinedAt: string | null;
  ticketUrl: string | null;
  /**
   * Its failure messages counted by first line, commonest first (tallyFailure). Absent in documents
   * folded before they were counted: those read as none until the test fails again.
   */
  failures?: FailureCount[];
  /** Highest stream revision among the test's recorded runs. */
  lastRevision: number;
  /** The evaluation the status stands on; an older one arriving late is ignored. */
  basis: { revision: number; at: string } | null;
}

/** A test document and the position of the last event folded into it (replays at or below are skipped). */
export interface StoredTest {
  doc: TestDoc;
  pos: bigint;
}

/** The upload a run belongs to: joined with the run's outcome it becomes a classify TestRun. */
export interface UploadMeta extends Pick<TestRun, 'at' | 'commitSha' | 'treeSha' | 'branch' | 'prNumber' | 'ciJob' | 'reporter'> {
  revision: number;
  testCount: number;
  failedCount: number;
}

/** A run as kept per test: the upload's stream revision and the outcome (skipped runs are not kept). */
export interface RunEntry {
  revision: number;
  outcome: Exclude<RunOutcome, 'skipped'>;
}

const OUTCOME_CODE: Record<RunEntry['outcome'], string> = { passed: 'p', failed: 'f', flaky: 'k' };
const CODE_OUTCOME: Record<string, RunEntry['outcome']> = { p: 'passed', f: 'failed', k: 'flaky' };

export const encodeRun = (run: RunEntry): string => `${run.revision}${OUTCOME_CODE[run.outcome]}`;

export const decodeRun = (text: string): RunEntry | null => {
  const outcome = CODE_OUTCOME[text.slice(-1)];
  const revision = Number(text.slice(0, -1));
  return outcome && Number.isSafeInteger(revision) ? { revision, outcome } : null;
};

export const HEALTHY_REASON = 'healthy: no monitor active';

// Fields are copied one by one: V8 makes `{ ...small, twenty more }` about 40 times slower per object,
// which showed as seconds on a 50,000-case upload.
export const newTestDoc = (
  f: Pick<TestDoc, 'repo' | 'repoId' | 'id' | 'name' | 'classname' | 'file' | 'parent' | 'variant'>,
  at: string,
): TestDoc => ({
  repo: f.repo,
  repoId: f.repoId,
  id: f.id,
  name: f.name,
  classname: f.classname,
  file: f.file,
  parent: f.parent,
  variant: f.variant,
  firstSeenAt: at,
  lastSeenAt: at,
  lastFailedAt: null,
  status: 'HEALTHY',
  reason: HEALTHY_REASON,
  since: at,
  statusUpdatedAt: at,
  monitors: [],
  pullRequestsImpactedLast7d: 0,
  corroborated: false,
  override: null,
  overrideAt: null,
  overrideBy: null,
  quarantined: false,
  quarantinedAt: null,
  ticketUrl: null,
  failures: [],
  lastRevision: -1,
  basis: null,
});
