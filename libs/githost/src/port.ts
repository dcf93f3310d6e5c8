import type { PullRequestSnapshot, RepoRef } from '@railyard/domain';

/**
 * The Git host as the queue sees it. Adapters: local (bare repositories + git CLI); GitHub later.
 * Read side only for now; the merge engine adds the write side (test branches, merges).
 */
export interface GitHost {
  /**
   * The PR as the host sees it now, or null when the repository or the PR does not exist. With
   * `mergeability: 'known'` the host answers only what it already knows (`unspecified` otherwise),
   * without working it out: a submission never waits for a merge (the engine learns it later).
   */
  getPullRequest(repo: RepoRef, number: number, opts?: { mergeability?: 'compute' | 'known' }): Promise<PullRequestSnapshot | null>;
  close(): Promise<void>;
}
