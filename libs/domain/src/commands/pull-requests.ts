import { DomainError } from '../errors';
import { isTerminal, type QueueEvent } from '../events';
import { DEFAULT_PRIORITY, MAX_PRIORITY_VALUE, resolvePriority } from '../priority';
import { isMergeabilityKnown, isReady, readinessChange, readinessOf } from '../readiness';
import { entryOf, targetsFor, type Entry, type QueueState } from '../state';
import { requireActiveEntry, requireInteger, requireQueue } from './guards';
import type { CancelPullRequest, DecideContext, RestartTestsOnPullRequest, SetImpactedTargets, SubmitPullRequest } from './types';

const NOT_ACCEPTING = new Set(['draining', 'switching_modes']);

export const decideSubmitPullRequest = (s: QueueState, c: SubmitPullRequest, ctx: DecideContext): QueueEvent[] => {
  requireQueue(s);
  if (typeof c.priority === 'number') requireInteger('priority', c.priority, 0, MAX_PRIORITY_VALUE);
  const existing = entryOf(s, c.pr.number);

  if (existing && !isTerminal(existing.state)) return resubmit(s, existing, c, ctx.now);

  if (NOT_ACCEPTING.has(s.runState))
    throw new DomainError('QUEUE_NOT_ACCEPTING_SUBMISSIONS', `the queue is ${s.runState} and takes no new submissions`);
  if (c.pr.state !== 'open') throw new DomainError('PR_NOT_OPEN', `PR #${c.pr.number} is ${c.pr.state}; only open PRs can be submitted`);

  const priority = resolvePriority(c.priority ?? DEFAULT_PRIORITY);
  const readiness = readinessOf({
    mode: s.settings.mode,
    queueBranch: s.branch,
    baseBranch: c.pr.baseBranch,
    mergeability: c.pr.mergeability,
    hasImpactedTargets: targetsFor(s, c.pr.number, c.pr.headSha) !== undefined,
  });
  return [
    {
      type: 'PrSubmitted',
      data: {
        // A PR keeps one entry per queue: a re-submission after it left reuses the id, as Trunk's does.
        entryId: existing?.entryId ?? ctx.newId(),
        prNumber: c.pr.number,
        title: c.pr.title,
        headSha: c.pr.headSha,
        author: c.pr.author,
        baseBranch: c.pr.baseBranch,
        ...(c.pr.headBranch ? { headBranch: c.pr.headBranch } : {}),
        priorityValue: priority.value,
        priorityName: priority.name,
        ...(c.priority === undefined ? { usedDefaultPriorityName: DEFAULT_PRIORITY } : {}),
        noBatch: c.noBatch ?? false,
        readiness,
        state: isReady(readiness) ? 'pending' : 'not_ready',
        reason: 'API_REQUESTED',
        at: ctx.now,
      },
    },
  ];
};

/**
 * v1 semantics: a re-submit updates priority and noBatch in place and keeps the entry (and its id).
 * It also refreshes readiness from the host's current answer, which is how a PR that became
 * mergeable again gets out of not_ready.
 */
const resubmit = (s: QueueState, existing: Entry, c: SubmitPullRequest, now: string): QueueEvent[] => {
  const events: QueueEvent[] = [];
  const p = c.priority === undefined ? undefined : resolvePriority(c.priority);
  const priorityValue = p?.value ?? existing.priorityValue;
  const priorityName = p?.name ?? existing.priorityName;
  const noBatch = c.noBatch ?? existing.noBatch;
  // An explicit priority, even one equal to the default, is no longer "the default was used".
  const usedDefaultPriorityName = p ? undefined : existing.usedDefaultPriorityName;
  if (
    priorityValue !== existing.priorityValue ||
    priorityName !== existing.priorityName ||
    noBatch !== existing.noBatch ||
    usedDefaultPriorityName !== existing.usedDefaultPriorityName
  )
    events.push({
      type: 'PrPriorityChanged',
      data: { prNumber: c.pr.number, priorityValue, priorityName, usedDefaultPriorityName, noBatch, at: now },
    });
  if (c.pr.headSha === existing.headSha) {
    const readiness = readinessOf({
      mode: s.settings.mode,
      queueBranch: s.branch,
      baseBranch: c.pr.baseBranch,
      // A host that has not worked mergeability out yet says nothing new: what the queue learned stays.
      mergeability: isMergeabilityKnown(c.pr.mergeability) ? c.pr.mergeability : existing.readiness.mergeability,
      hasImpactedTargets: targetsFor(s, c.pr.number, c.pr.headSha) !== undefined,
    });
    const change = readinessChange(existing, readiness, now);
    if (change) events.push(change);
  }
  return events;
};

export const decideCancelPullRequest = (s: QueueState, c: CancelPullRequest, ctx: DecideContext): QueueEvent[] => {
  requireActiveEntry(s, c.prNumber);
  return [{ type: 'PrCancelled', data: { prNumber: c.prNumber, reason: 'API_REQUESTED', at: ctx.now } }];
};

const RESTARTABLE = new Set(['testing', 'tests_passed', 'pending_failure']);

export const decideRestartTests = (s: QueueState, c: RestartTestsOnPullRequest, ctx: DecideContext): QueueEvent[] => {
  const e = requireActiveEntry(s, c.prNumber);
  if (!RESTARTABLE.has(e.state))
    throw new DomainError('PR_TESTS_NOT_RESTARTABLE', `PR #${c.prNumber} is ${e.state}: it has no tests to restart yet`);
  return [{ type: 'TestsRestarted', data: { prNumber: c.prNumber, reason: 'TESTS_RESTARTED_BY_API_REQUEST', at: ctx.now } }];
};

export const decideSetImpactedTargets = (s: QueueState, c: SetImpactedTargets, ctx: DecideContext): QueueEvent[] => {
  requireQueue(s);
  const previous = targetsFor(s, c.prNumber, c.headSha);
  const same = previous && previous.digest === c.targets.digest && previous.all === c.targets.all;
  const events: QueueEvent[] = same
    ? []
    : [{ type: 'ImpactedTargetsSet', data: { prNumber: c.prNumber, headSha: c.headSha, ...c.targets, at: ctx.now } }];

  const e = entryOf(s, c.prNumber);
  if (e && e.headSha === c.headSha) {
    const change = readinessChange(e, { ...e.readiness, hasImpactedTargets: true }, ctx.now);
    if (change) events.push(change);
  }
  return events;
};
