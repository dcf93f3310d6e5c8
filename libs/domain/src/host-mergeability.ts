import type { Mergeability } from './events';

/**
 * A code host's view of a PR as the queue's mergeability, one rule for every path that reads a PR
 * (docs/decisions.md D147): a closed or merged PR is not mergeable; a draft is `unspecified`, not
 * ready and not a conflict, until it is marked ready (which the host announces); otherwise the host's
 * verdict, `unspecified` while the host is still working it out (GitHub's `mergeable: null`).
 */
export const hostMergeability = (pr: { open: boolean; draft: boolean; mergeable: boolean | null }): Mergeability => {
  if (!pr.open) return 'not_mergeable';
  if (pr.draft || pr.mergeable === null) return 'unspecified';
  return pr.mergeable ? 'mergeable' : 'not_mergeable';
};
