import type { RepoRef, ReportedStatus, RequiredStatusesSource } from '@railyard/domain';

export interface CiTrigger {
  repo: RepoRef;
  sha: string;
  /**
   * The commit whose `.railyard.yml` says which checks run and which reports are collected: the
   * target-branch commit the test branch was built on (the domain's gatingConfigCommit), never `sha`,
   * whose files the PR under test controls.
   */
  configSha: string;
  branch: string;
  testRunId: string;
  timeoutMinutes: number;
  /**
   * Set when the run re-runs a failed run on the same commit (flakeRetries): the checks that failed,
   * and which re-run of the failure it is (1 for the first). A CI that does not run on a trigger
   * (GitHub's) asks for these checks to run again, unless this attempt already asked (a restart).
   */
  rerun?: { contexts: string[]; attempt: number };
}

/** The same shape as libs/ci's `resolveRequiredStatuses`, so its LocalCi plugs in as a CiPort unchanged. */
export type RequiredStatusesAnswer =
  | {
      statuses: string[];
      source: RequiredStatusesSource;
      /** The contexts this CI runs itself per the config commit: their statuses count only from it (absent: none). */
      localChecks?: string[];
    }
  | { error: 'START_TEST_RUN_NO_REQUIRED_STATUSES' | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'; message: string };

/**
 * What the engine needs from CI: start checks on a test branch, stop them, read the commit statuses
 * they post, hear when they change, and find out which statuses a run needs. libs/ci provides the
 * real runner and status store (createLocalCi).
 */
export interface CiPort {
  trigger(req: CiTrigger): Promise<void>;
  /** Decides the stop and returns: the engine never waits for processes to go (CI reaps them in the background). */
  cancel(testRunId: string): Promise<void>;
  /**
   * Runs `contexts` of a run again after an infrastructure error (the domain's `infrastructureRetries`
   * decided it). Without it the engine triggers the run again, which a CI that knows the run ignores.
   */
  retry?(req: CiTrigger & { contexts: string[] }): Promise<void>;
  /** Cancelled runs whose processes or checkouts are not gone yet (railyard_engine_ci_reaps_pending). */
  reapsPending?(): number;
  /** Whether this process has started (and not forgotten) checks for the run: after a restart it has not. */
  isRunning(testRunId: string): boolean;
  /**
   * Whether this CI still owes the run's test reports (JUnit uploads): the engine holds the run's
   * failure until they are in, so it is judged with its results. A CI that uploads nothing for the
   * engine to wait on (GitHub's) leaves this out, and its failures are never held.
   */
  reportsPending?(testRunId: string): boolean;
  /** False when `trigger` on a commit the CI already ran runs nothing (HostFacts.sameCommitReruns). Absent: it reruns. */
  rerunsSameCommit?(repo: RepoRef): boolean;
  /**
   * The checks this CI runs itself at a tested commit whose run is gated by `configSha`'s files
   * (HostFacts.rerunnable); absent or undefined: it reruns whatever it is asked.
   */
  rerunnableChecks?(repo: RepoRef, sha: string, configSha: string): Promise<ReadonlySet<string> | undefined>;
  /**
   * The gating configuration files (`.railyard.yml`, `.trunk/trunk.yaml`) whose content differs
   * between two commits: a PR's changes to them that its run does not use, said in its explanation.
   * Absent: nothing is said.
   */
  configChanges?(repo: RepoRef, from: string, to: string): Promise<string[]>;
  statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]>;
  onChange(listener: (repo: RepoRef, sha: string) => void): () => void;
  /**
   * The statuses a run (or a direct merge) needs, from the queue's list and the files at `configSha`
   * (the domain's gatingConfigCommit: the target-branch commit it is built on, never the tested tree).
   * `branch`: the queue's target, whose branch rules a forge adds to them (GitHub rulesets, branch protection).
   */
  resolveRequiredStatuses(input: {
    queueList: readonly string[];
    repo: RepoRef;
    configSha: string;
    branch?: string;
  }): Promise<RequiredStatusesAnswer>;
  close(): Promise<void>;
}
