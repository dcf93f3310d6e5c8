import type { CommitChecker } from '@railyard/ci';
import type { CommitStatusStore } from '@railyard/githost';

/** What the CI endpoints need beside ApiDeps; the composition passes it in. */
export interface CiHttpDeps {
  statuses: CommitStatusStore;
  commits: CommitChecker;
  /** Where `ci-logs/` lives (the runner writes there). */
  dataDir: string;
  /** Base of the PR URLs in answers; unset: the scheme and host the request came to. */
  publicUrl?: string;
}
