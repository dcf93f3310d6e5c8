import type {
  EnqueuedPullRequest,
  GetQueueResponse,
  PullRequestSummary,
  QueueResponse,
  SubmittedPullRequestResponse,
} from '@railyard/api-schema';
import type { PrView, QueueView } from './port';
import { activeEntries, batchSizeFor, byQueueOrder, type Explanation, type QueueState } from '@railyard/domain';
import { prViewOf } from './projection/pr-view';

export const queueResponse = (q: QueueView): QueueResponse => ({
  state: q.state,
  branch: q.branch,
  ...q.settings,
  requiredStatuses: q.requiredStatuses,
  ...(q.statusReporters ? { statusReporters: q.statusReporters } : {}),
  ...(q.hostProblem ? { hostProblem: q.hostProblem } : {}),
  ...(q.settings.batch ? { batchSize: batchSizeFor(q.settings, q.failureRate) } : {}),
  ...(q.failureRate !== undefined ? { failureRate: Math.round(q.failureRate * 10_000) / 10_000 } : {}),
});

/**
 * Trunk's own Terraform client reads `{queue: {...}}` and the older spellings, while the spec reads a
 * flat object; both are served so either kind of client works.
 */
export const queueEnvelope = (q: QueueResponse): Record<string, unknown> => ({
  ...q,
  testingTimeoutMins: q.testingTimeoutMinutes,
  isBatching: q.batch,
  batchingMaxWaitTimeMins: q.batchingMaxWaitTimeMinutes,
  queue: q,
});

/** The fields every one of Trunk's PR answers shows: getSubmittedPullRequest, getQueue's and listPullRequests' items. */
export const prSummary = (p: PrView): PullRequestSummary => ({
  id: p.id,
  state: p.state,
  stateChangedAt: p.stateChangedAt,
  priorityValue: p.priorityValue,
  priorityName: p.priorityName,
  ...(p.usedDefaultPriorityName ? { usedDefaultPriorityName: p.usedDefaultPriorityName } : {}),
  skipTheLine: p.skipTheLine,
  noBatch: p.noBatch,
  prNumber: p.prNumber,
  prTitle: p.prTitle,
  prSha: p.prSha,
  prBaseBranch: p.prBaseBranch,
  prAuthor: p.prAuthor,
});

/** An enqueued PR: Trunk's fields, then the names Railyard's own clients read. */
const enqueued = (p: PrView, x: Explanation): EnqueuedPullRequest => ({
  ...prSummary(p),
  number: p.prNumber,
  title: p.prTitle,
  sha: p.prSha,
  author: p.prAuthor,
  priority: p.priorityValue,
  ...explanationFields(x),
});

/** getQueue: the queue and its PRs in order, each with its explanation (`explanations[i]` is `prs[i]`'s). */
export const getQueueResponse = (
  q: QueueView,
  prs: PrView[],
  explanations: Explanation[],
): Record<string, unknown> & Pick<GetQueueResponse, 'enqueuedPullRequests'> => ({
  ...queueEnvelope(queueResponse(q)),
  enqueuedPullRequests: prs.map((p, i) => enqueued(p, explanations[i] as Explanation)),
});

/**
 * The same views built from the write side's state: used only when the read models did not catch up
 * within the read-your-writes bound, so a write never answers with a stale or missing object.
 */
export const queueViewOfState = (s: QueueState): QueueView => ({
  queueId: s.queueId,
  repo: s.repo,
  branch: s.branch,
  state: s.runState,
  ...(s.pendingMode ? { pendingMode: s.pendingMode } : {}),
  settings: s.settings,
  requiredStatuses: s.requiredStatuses,
  ...(Object.keys(s.statusReporters).length > 0 ? { statusReporters: s.statusReporters } : {}),
  createdAt: '',
  updatedAt: '',
  ...(s.hostProblem ? { hostProblem: s.hostProblem } : {}),
  ...(s.failureRate !== undefined ? { failureRate: s.failureRate } : {}),
});

/** The queue's PRs not yet merged, failed or cancelled, in queue order, from the write side's state. */
export const activePrViewsOfState = (s: QueueState): PrView[] =>
  activeEntries(s)
    .sort(byQueueOrder)
    .map((e) => prViewOf(s.queueId, e));

/** getSubmittedPullRequest: the spec's fields, then the explanation (docs/api.md, "Explanations"). */
export const prResponse = (p: PrView, x: Explanation): SubmittedPullRequestResponse => ({
  ...prSummary(p),
  readiness: {
    requiresImpactedTargets: p.readiness.requiresImpactedTargets,
    doesBaseBranchMatch: p.readiness.doesBaseBranchMatch,
    hasImpactedTargets: p.readiness.hasImpactedTargets,
    gitHubMergeability: p.readiness.mergeability,
  },
  forceEnqueued: p.forceEnqueued,
  isCurrentlySubmittedToQueue: p.isCurrentlySubmittedToQueue,
  ...explanationFields(x),
});

const explanationFields = (x: Explanation): Pick<SubmittedPullRequestResponse, 'stateReason' | 'waitingOn' | 'lastTestRun' | 'notes'> => ({
  stateReason: x.stateReason,
  waitingOn: x.waitingOn,
  ...(x.lastTestRun ? { lastTestRun: x.lastTestRun } : {}),
  ...(x.notes ? { notes: x.notes } : {}),
});
