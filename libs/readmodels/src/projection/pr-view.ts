import { isTerminal, isUrgent, type EntryFacts } from '@railyard/domain';
import type { PrView } from '../port';

/**
 * The one PR view: what getSubmittedPullRequest and the dashboard show of an entry. The projection
 * builds every PR document with it, and the API with it when it must answer from the write side's
 * state (read models lagging), so the two cannot drift.
 */
export const prViewOf = (queueId: string, e: EntryFacts): PrView => ({
  queueId,
  id: e.entryId,
  prNumber: e.prNumber,
  prTitle: e.title,
  prSha: e.headSha,
  prBaseBranch: e.baseBranch,
  prAuthor: e.author,
  state: e.state,
  stateChangedAt: e.stateChangedAt,
  ...(e.stateReason ? { stateReason: e.stateReason } : {}),
  priorityValue: e.priorityValue,
  priorityName: e.priorityName,
  ...(e.usedDefaultPriorityName ? { usedDefaultPriorityName: e.usedDefaultPriorityName } : {}),
  skipTheLine: isUrgent(e.priorityValue),
  forceEnqueued: e.forceEnqueued,
  isCurrentlySubmittedToQueue: !isTerminal(e.state),
  noBatch: e.noBatch,
  readiness: e.readiness,
  submittedAt: e.submittedAt,
  seq: e.seq,
  ...(e.lastTestRunId !== undefined ? { lastTestRunId: e.lastTestRunId } : {}),
});

/** The entry facts a stored view holds: prViewOf's inverse, so the projection folds with the domain's evolveEntry. */
export const entryFactsOf = (v: PrView): EntryFacts => ({
  entryId: v.id,
  prNumber: v.prNumber,
  title: v.prTitle,
  headSha: v.prSha,
  author: v.prAuthor,
  baseBranch: v.prBaseBranch,
  priorityValue: v.priorityValue,
  priorityName: v.priorityName,
  ...(v.usedDefaultPriorityName ? { usedDefaultPriorityName: v.usedDefaultPriorityName } : {}),
  noBatch: v.noBatch,
  forceEnqueued: v.forceEnqueued,
  state: v.state,
  stateChangedAt: v.stateChangedAt,
  ...(v.stateReason ? { stateReason: v.stateReason } : {}),
  submittedAt: v.submittedAt,
  seq: v.seq,
  readiness: v.readiness,
  ...(v.lastTestRunId !== undefined ? { lastTestRunId: v.lastTestRunId } : {}),
});
