import type { MergeMethod, Mergeability, PullRequestSnapshot, RepoRef, ReportedStatus } from '@railyard/domain';

/** A PR as the host shows it now. Mergeability is not part of it: it is a fact of its own (below). */
export type HostPullRequest = Omit<PullRequestSnapshot, 'mergeability'>;

export interface BranchHead {
  sha: string;
  tree: string;
}

export interface StackedPullRequest {
  number: number;
  headSha: string;
  /** Subject of the squash or merge commit; the head commit's subject when absent. */
  title?: string;
}

export interface TestBranchRequest {
  /** The target's head the stack is built on. */
  baseSha: string;
  /** The PRs ahead first, then the tested one(s), in merge order. */
  stack: readonly StackedPullRequest[];
  method: MergeMethod;
  testRunId: string;
  /** Names the branch `railyard-merge/pr-<prNumber>/<testRunId>`. */
  prNumber: number;
}

export type TestBranchBuilt =
  | { ok: true; branch: string; sha: string; tree: string; steps: { number: number; sha: string; tree: string }[] }
  /** A PR of the stack does not apply: on the base, or on the PR ahead named in `with`. */
  | { ok: false; conflict: { number: number; with: 'base' | number; paths: string[] } };

export interface TestBranchRef {
  branch: string;
  /** The run id the branch's name carries. */
  testRunId: string;
}

/**
 * Commits that land a PR's tested change on a target that moved since its run was built. `copy`:
 * the target holds the tree the run stacked the PR on, so the PR's commits (`from..to`, first-parent)
 * are copied onto it with their trees unchanged. `replay`: other lanes merged meanwhile (parallel
 * mode); each commit is picked onto the target three-way, against its own parent.
 */
export interface CarryRequest {
  mode: 'copy' | 'replay';
  from: string;
  to: string;
  onto: string;
}
export type Carried = { ok: true; sha: string } | { ok: false; paths: string[] };

export interface DirectMergeRequest {
  baseSha: string;
  headSha: string;
  prNumber: number;
  title: string;
  method: MergeMethod;
}

/**
 * The outcome of a landing. It never retries by itself: `moved` says where the branch is instead,
 * and the engine plans again from there (a landing retried blindly can land a commit twice).
 */
export type Landing = { landed: true } | { landed: false; actual: string | null };

/**
 * What the host tells the engine happened. A hint, not a log: the engine re-reads the fact it names,
 * and the same change may be announced twice.
 */
export type HostEvent =
  /** A PR was pushed to, closed, reopened, retitled or retargeted. */
  | { kind: 'pull'; repo: RepoRef; number: number }
  /** A branch moved (a push to a queue's target, or a merge by someone else). */
  | { kind: 'branch'; repo: RepoRef; branch: string }
  /** A commit status or check changed on `sha`. */
  | { kind: 'status'; repo: RepoRef; sha: string }
  /** The host worked out a PR's mergeability (for the head it names). */
  | { kind: 'mergeability'; repo: RepoRef; number: number; headSha: string; mergeability: Mergeability }
  /** The host may have missed changes (a watch restarted, a webhook gap): verify everything of the repository. */
  | { kind: 'resync'; repo: RepoRef };

export type HostListener = (event: HostEvent) => void;

/**
 * The code host as the merge engine uses it: the write side of a forge (test branches, landings,
 * branch clean-up) and the facts the planner needs, delivered as events where the host can. It is
 * written so that GitHub can implement it as well as the local host (docs/engine.md, "The code-host
 * port"): a test branch can be built through the git data API, a landing is a fast-forward-only ref
 * update, a PR's merged flag and its mergeability arrive late, and host events are webhooks.
 *
 * Every method is idempotent or says what it found: the engine may crash between any two calls and
 * plan again from what the host shows.
 */
export interface CodeHost {
  /** The PR now, or null when the repository or the PR does not exist. */
  pullRequest(repo: RepoRef, number: number): Promise<HostPullRequest | null>;
  /**
   * What the host knows of the PR's mergeability at `headSha` against its base's head now. When it
   * does not know yet (GitHub: `mergeable: null`) the answer is `unspecified` and the host works it
   * out: a `mergeability` event follows.
   */
  mergeability(repo: RepoRef, number: number, headSha: string): Promise<Mergeability>;
  /** The branch's head and its tree, or null when the branch does not exist. REPO_NOT_FOUND when the repository does not. */
  branchHead(repo: RepoRef, branch: string): Promise<BranchHead | null>;
  treeOf(repo: RepoRef, sha: string): Promise<string>;
  /** Whether `ancestor` is in the history of `descendant` (a PR up to date with the target). */
  isAncestor(repo: RepoRef, ancestor: string, descendant: string): Promise<boolean>;
  /** The latest commit status (or check) of each context reported on `sha`. */
  statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]>;

  /** Builds `railyard-merge/pr-<n>/<runId>`: the stack merged one PR after the other onto `baseSha`. A new branch only. */
  buildTestBranch(repo: RepoRef, request: TestBranchRequest): Promise<TestBranchBuilt>;
  /** The test branches that exist, for the clean-up of runs the queue no longer holds. */
  listTestBranches(repo: RepoRef): Promise<TestBranchRef[]>;
  /** Deletes the branch (only if it is at `expectedSha`, when given). Deleting a branch that is gone does nothing. */
  deleteBranch(repo: RepoRef, branch: string, expectedSha?: string): Promise<void>;
  /** Writes the commits that carry a tested change onto a moved target; no ref moves. */
  carryOnto(repo: RepoRef, request: CarryRequest): Promise<Carried>;
  /** The commit a direct merge lands: the PR head on top of `baseSha`, by the queue's merge method; no ref moves. */
  directMergeCommit(repo: RepoRef, request: DirectMergeRequest): Promise<string>;
  /**
   * Moves `branch` from `expected` to `sha`, a descendant of it (a fast-forward), and only if it is
   * still at `expected`. GitHub: `PATCH git/refs/heads/<branch>` with `force: false`, whose 422 means
   * the branch moved; on any doubt the adapter re-reads the ref and answers from what it finds.
   */
  land(repo: RepoRef, request: { branch: string; sha: string; expected: string }): Promise<Landing>;
  /**
   * Tells the host the PR is merged, after its change landed. GitHub marks a PR merged by itself when
   * its head is in the landed history (a merge commit, a rebase that kept it); otherwise the adapter
   * closes it. Already merged: nothing. Closed meanwhile: nothing (the target holds the change either way).
   */
  markMerged(repo: RepoRef, number: number): Promise<void>;

  /** Follows the repository's PRs, the named branches and statuses; events of other repositories may come too. */
  watch(repo: RepoRef, branches: readonly string[], listener: HostListener): () => void;
  close(): Promise<void>;
}

/** The `code` a CodeHost error carries (`REPO_NOT_FOUND`, `INVALID_INPUT`, …), which the engine reports by. */
export const hostErrorCode = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};
