import type { CommitStatusState, RepoRef } from '@railyard/domain';

export type { CommitStatusState } from '@railyard/domain';
export const COMMIT_STATUS_STATES: readonly CommitStatusState[] = ['pending', 'success', 'failure', 'error'];

/** What a CI posts about one check on one commit (GitHub's statuses API, on the local host). */
export interface CommitStatusInput {
  context: string;
  state: CommitStatusState;
  targetUrl?: string;
  description?: string;
  /**
   * Who reports it (the domain's reporter ids: `local-ci`, `token:<name>`, `cli`), set by the writer
   * from who the caller is, never from what the caller says. Absent: unknown, which gates only what
   * anyone may report (docs/security.md, "Who may report a status").
   */
  reporter?: string;
}

/** The latest status of one context on one commit. */
export interface CommitStatus extends CommitStatusInput {
  /** When this context first reported on this commit. */
  createdAt: string;
  /** When it last reported. */
  updatedAt: string;
}

export type CommitStatusListener = (repo: RepoRef, sha: string) => void;

/**
 * Commit statuses per repository and commit: the local CI, `railyard status set` and the intake
 * endpoint write here; the merge engine listens. Adapters: events in the event store (every
 * process that shares it, docs/ci.md "Commit statuses"); a forge's statuses API later.
 */
export interface CommitStatusStore {
  /** Records the status and answers it as stored; a later set of the same context replaces it. */
  set(repo: RepoRef, sha: string, input: CommitStatusInput): Promise<CommitStatus>;
  /** The latest status of every context reported on the commit, in the order contexts first reported. */
  list(repo: RepoRef, sha: string): Promise<CommitStatus[]>;
  /**
   * The latest status of every context from each reporter, oldest report first: a status only some
   * reporters may give is judged from these, so a report from anyone else cannot hide it.
   */
  reports(repo: RepoRef, sha: string): Promise<CommitStatus[]>;
  /**
   * Called after a status changed, whichever process changed it. A hint, not a log: a listener
   * re-reads with list(), and may be called more than once for one change.
   */
  onChange(listener: CommitStatusListener): () => void;
  close(): Promise<void>;
}
