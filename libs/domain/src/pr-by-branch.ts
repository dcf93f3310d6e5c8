import { isTerminal } from './events';
import { knownEntries, type Entry, type QueueState } from './state';

/**
 * The PR a head branch names in a queue (getSubmittedPullRequest by `pr.branch`). A branch is reused
 * by many PRs over time (a bot opening PRs from one branch), so: the PR from it that is in the queue
 * now (the latest submitted, should there be several), else the one whose cycle ended last. Only PRs
 * submitted from that branch count; undefined when there is none.
 */
export const entryFromBranch = (s: QueueState, branch: string): Entry | undefined => {
  let best: Entry | undefined;
  const rank = (e: Entry): [number, string] => (isTerminal(e.state) ? [0, e.stateChangedAt] : [1, e.submittedAt]);
  for (const e of knownEntries(s)) {
    if (e.headBranch !== branch) continue;
    if (!best) {
      best = e;
      continue;
    }
    const [a, at] = rank(e);
    const [b, bt] = rank(best);
    if (a > b || (a === b && (at > bt || (at === bt && e.seq > best.seq)))) best = e;
  }
  return best;
};
