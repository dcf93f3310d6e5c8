import type { Codeowners } from '../codeowners/codeowners';
import type { RepoRef } from '../events/events';

/** GitHub's lookup order: the first of these that exists is the repository's CODEOWNERS. */
export const CODEOWNERS_PATHS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const;

/** A test run id that may become part of a ref name or a request (the queue's ids, nothing else). */
export const isTestRunId = (id: string): boolean => /^[A-Za-z0-9._-]{1,128}$/.test(id);

/**
 * What test health reads from the code host of a repository (docs/test-health.md, "What test health
 * reads from the code host"). Test health owns this port; the local git host and GitHub adapt to it.
 * An unknown repository, or one the host will not show, reads as absent (false, null, no rules); a
 * host that cannot be reached throws RepoFactsUnavailable.
 */
export interface RepoFacts {
  exists(repo: RepoRef): Promise<boolean>;
  /** The repository's default branch, or null when there is no such repository. */
  defaultBranch(repo: RepoRef): Promise<string | null>;
  /** The commit's tree, or null when the host does not have the commit (CI may run ahead of a mirror). */
  treeOf(repo: RepoRef, sha: string): Promise<string | null>;
  /** The merge queue's test branch of a run, if it still exists. */
  testBranchOf(repo: RepoRef, testRunId: string): Promise<string | null>;
  /** CODEOWNERS of the default branch as it is now; an empty set of rules when there is none. */
  codeowners(repo: RepoRef): Promise<Codeowners>;
}

/** The code host did not answer (unreachable, 5xx, rate limited past the client's retries): the API answers 503. */
export class RepoFactsUnavailable extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'RepoFactsUnavailable';
  }
}
