import type { RepoRef, ReportedStatus, RequiredStatusesSource } from '@railyard/domain';

export interface CiTrigger {
  repo: RepoRef;
  sha: string;
  branch: string;
  testRunId: string;
  timeoutMinutes: number;
}

/** The same shape as libs/ci's `resolveRequiredStatuses`, so its LocalCi plugs in as a CiPort unchanged. */
export type RequiredStatusesAnswer =
  | { statuses: string[]; source: RequiredStatusesSource }
  | { error: 'START_TEST_RUN_NO_REQUIRED_STATUSES' | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'; message: string };

/**
 * What the engine needs from CI: start checks on a test branch, stop them, read the commit statuses
 * they post, hear when they change, and find out which statuses a run needs. libs/ci provides the
 * real runner and status store (createLocalCi).
 */
export interface CiPort {
  trigger(req: CiTrigger): Promise<void>;
  cancel(testRunId: string): Promise<void>;
  /** Whether this process has started (and not forgotten) checks for the run: after a restart it has not. */
  isRunning(testRunId: string): boolean;
  statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]>;
  onChange(listener: (repo: RepoRef, sha: string) => void): () => void;
  /** `branch`: the queue's target, whose branch rules a forge may require statuses by (GitHub rulesets, branch protection). */
  resolveRequiredStatuses(input: {
    queueList: readonly string[];
    repo: RepoRef;
    sha: string;
    branch?: string;
  }): Promise<RequiredStatusesAnswer>;
  close(): Promise<void>;
}

// Compile-time proof that libs/ci's LocalCi is a CiPort, so a composition can hand it to the engine as it is.
const _libsCiFits: import('@railyard/ci').LocalCi extends CiPort ? true : never = true;
const _githubCiFits: import('@railyard/github').GithubCi extends CiPort ? true : never = true;
