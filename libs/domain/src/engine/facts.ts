import type { Mergeability } from '../events';
import type { CommitStatusState } from '../events-engine';
import type { TargetOverlaps } from './overlaps';

/** What the engine read from the host and CI just before planning. The planner itself reads nothing. */
export interface HostFacts {
  /** The target branch now; null when it does not exist. */
  target: { sha: string; tree: string } | null;
  /** The host's view of the queue's active PRs; a PR missing here is left alone this round. */
  pulls: ReadonlyMap<number, PullFacts>;
  /**
   * Commit statuses per test branch sha, for runs in flight: the latest of each context and reporter,
   * latest last (the planner sorts out which count, gatingReports).
   */
  statuses: ReadonlyMap<string, readonly ReportedStatus[]>;
  /** Test branches that exist on the host, with the run id their name carries. */
  testBranches: readonly { branch: string; testRunId: string }[];
  /** Only for the PR a direct merge could take (`directMergeCandidate`): what the host says of its head. */
  directMerge?: DirectMergeFacts;
  /**
   * Parallel mode: which uploaded impacted-target lists overlap, computed by the engine from the
   * lists in the blob store (cached by digest). Without it every PR counts as impacting everything.
   */
  overlaps?: TargetOverlaps;
  /**
   * What the JUnit results uploaded for a run's test commit say of its failing tests, per test run
   * id: gathered by the engine from the test-health read model for runs whose required checks
   * failed (apps/engine/src/test-health-facts.ts). A run missing here has no results.
   */
  testResults?: ReadonlyMap<string, RunTestResults>;
  /**
   * False when the queue's CI cannot run checks again on a commit it already ran (a forge's CI that
   * starts on a push, such as GitHub Actions behind the GitHub adapter): then no failure is re-run on
   * the same commit (flakeRetries does not apply) and failures are judged as they stand. Absent: it can.
   */
  sameCommitReruns?: boolean;
  /**
   * Per test commit of a failed run: the checks the queue's CI runs itself there (the local CI's
   * `.railyard.yml` checks). A failure of a check outside it (an outside CI reporting over HTTP) is
   * not re-run: nobody would run it again. Absent for a commit: every check counts as re-runnable.
   */
  rerunnable?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The health the test-health service gives a test (docs/test-health.md §3, §4); `new` when it has none yet. */
export type TestHealth = 'healthy' | 'flaky' | 'broken' | 'quarantined' | 'new';

export interface FailingTest {
  /** The check (commit status context) whose results reported it, when known. */
  context?: string;
  name: string;
  health: TestHealth;
}

export interface RunTestResults {
  /** Every test the run's results report failing (after in-run retries, docs/test-health.md §1). */
  failing: readonly FailingTest[];
}

export interface DirectMergeFacts {
  prNumber: number;
  headSha: string;
  /** Whether the PR head holds the target's head: merged as it is, it lands exactly its own tree. */
  upToDate: boolean;
  headTree: string;
  /** The statuses the queue requires (its own list, else the repository's at the target's head); empty when none resolve. */
  requiredStatuses: readonly string[];
  /** The contexts the local CI runs per the target's head: only its reports count for them. */
  localChecks?: readonly string[];
  /** The latest report of each context and reporter on the PR head, latest last. */
  headStatuses: readonly ReportedStatus[];
}

export interface PullFacts {
  headSha: string;
  baseBranch: string;
  state: 'open' | 'closed' | 'merged';
  /** Asked only for PRs waiting on readiness: computing it is a merge per PR. */
  mergeability?: Mergeability;
}

export interface ReportedStatus {
  context: string;
  state: CommitStatusState;
  url?: string;
  /** Who reported it (status-reporters.ts); absent: unknown. */
  reporter?: string;
  /** The CI says this `error` is no verdict on the code (a check that could not start, a lost checkout, a runner crash). */
  infrastructureError?: { code: string; message: string };
}

export const emptyFacts = (): HostFacts => ({ target: null, pulls: new Map(), statuses: new Map(), testBranches: [] });
