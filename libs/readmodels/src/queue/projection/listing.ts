import { isTerminal, type PrState } from '@railyard/domain';
import type { PrView } from '../port';

/**
 * One page of listPullRequests: every PR of the queue's current generation, active or not, in PR
 * number order, which no change to a PR can move, so a walk by `afterPrNumber` neither repeats nor
 * skips a PR whatever happens between its pages.
 */
export interface PrListQuery {
  /** Only PRs with a higher number (the last one of the previous page). */
  afterPrNumber?: number;
  take: number;
  state?: PrState;
  /** ISO 8601 (UTC, as stateChangedAt is stored): only PRs that concluded (merged, failed, cancelled) at or after it. */
  concludedSince?: string;
}

export interface PrListPage {
  prs: PrView[];
  /** Whether more matching PRs follow the page. */
  more: boolean;
}

/** Whether a PR of the queue's current generation belongs in the listing's filter. */
export const matchesListing = (pr: PrView, q: PrListQuery): boolean =>
  (q.state === undefined || pr.state === q.state) &&
  (q.concludedSince === undefined || (isTerminal(pr.state) && pr.stateChangedAt >= q.concludedSince));

/** The page out of PRs given in number order (the memory store and the event store's state). */
export const pageOf = (inNumberOrder: Iterable<PrView>, q: PrListQuery): PrListPage => {
  const prs: PrView[] = [];
  for (const pr of inNumberOrder) {
    if (q.afterPrNumber !== undefined && pr.prNumber <= q.afterPrNumber) continue;
    if (!matchesListing(pr, q)) continue;
    if (prs.length === q.take) return { prs, more: true };
    prs.push(pr);
  }
  return { prs, more: false };
};
