import type { CommitChecker, LogArchive } from '@railyard/ci';
import type { CommitStatusStore } from '@railyard/githost';
import type { Sessions } from '../dashboard/session';
import type { ApiDeps } from '../deps';

/** What the CI endpoints need beside ApiDeps; the composition passes it in. */
export interface CiHttpDeps {
  statuses: CommitStatusStore;
  commits: CommitChecker;
  /** Where `ci-logs/` lives (a runner on this node writes there). */
  dataDir: string;
  /** The blob store, where runners on any node archive finished logs (docs/operations.md, "CI logs"). */
  logs?: LogArchive;
  /** Base of the PR URLs in answers (RAILYARD_PUBLIC_URL). */
  publicUrl?: string;
  /**
   * Without publicUrl: the address the process listens on, the base the check runner gives its log
   * links too, so every URL handed out has one base (issue 14: prUrl said localhost while log links
   * said 127.0.0.1). Only when neither is known: the scheme and host the request came to.
   */
  selfUrl?: () => string;
  /** Dashboard sessions: a signed-in browser may read the check logs without the token header. */
  sessions?: Sessions;
}

/** The dependencies of the CI operations. */
export type CiOperationDeps = ApiDeps & { ci: CiHttpDeps };
