import { evolveEntry, foldFailureRate, outcomeOf, submittedEntry, type QueueCreated } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type { QueueView } from '../port';
import { entryFactsOf, prViewOf } from './pr-view';
import { isCurrent, positionOf, type PrDoc, type ProjectionDocs, type QueueDoc } from './docs';
import { asQueueEvent, targetOf, timeOf } from '../../events/queue-event';

/**
 * Folds one event into the queue and PR documents it targets (see targetOf) and returns the new
 * documents; the inputs are never mutated. Events at or below a document's position leave it as it
 * is, so feeding the same event twice is harmless.
 *
 * ImpactedTargetsSet changes no view: the write side follows it with a PrReadinessChanged whenever
 * the PR's readiness flips, and folding the flag here as well would let the two disagree.
 */
export const projectEvent = (docs: ProjectionDocs, event: RecordedEvent): ProjectionDocs => {
  if (!targetOf(event) || event.position <= positionOf(docs.queue)) return docs;
  const position = event.position.toString();
  const e = asQueueEvent(event);
  if (e.type === 'QueueCreated') return { queue: createdQueue(docs.queue, e, position), pr: docs.pr };

  const queue = docs.queue;
  if (!queue?.view) return docs;
  const at = timeOf(event);
  const current = isCurrent(queue, docs.pr) && event.position > positionOf(docs.pr) ? docs.pr : null;

  let view: QueueView | null = queue.view;
  let nextSeq = queue.nextSeq;
  let pr = current ? current.view : null;
  switch (e.type) {
    case 'QueueConfigUpdated': {
      const { changes, requiredStatuses, statusReporters } = e.data;
      const { statusReporters: before, ...rest } = view;
      const reporters = statusReporters === undefined ? before : statusReporters;
      view = {
        ...rest,
        settings: { ...view.settings, ...changes },
        requiredStatuses: requiredStatuses === undefined ? view.requiredStatuses : [...(requiredStatuses ?? [])],
        ...(reporters && Object.keys(reporters).length > 0 ? { statusReporters: reporters } : {}),
        updatedAt: at,
      };
      break;
    }
    case 'QueueStateChanged': {
      const { pendingMode: _previous, ...rest } = view;
      view = { ...rest, state: e.data.to, ...(e.data.pendingMode ? { pendingMode: e.data.pendingMode } : {}), updatedAt: at };
      break;
    }
    case 'QueueDeleted':
      view = null;
      break;
    case 'QueueHostProblemReported':
      view = { ...view, hostProblem: { code: e.data.code, detail: e.data.detail, since: at } };
      break;
    case 'QueueHostProblemCleared': {
      const { hostProblem: _cleared, ...rest } = view;
      view = rest;
      break;
    }
    case 'PrSubmitted':
      pr = prViewOf(view.queueId, submittedEntry(e, queue.nextSeq));
      nextSeq += 1;
      break;
    default:
      break;
  }
  if (pr && e.type !== 'PrSubmitted') {
    const before = entryFactsOf(pr);
    const after = evolveEntry(before, e);
    if (after !== before) pr = prViewOf(pr.queueId, after);
    const outcome = outcomeOf(before.state, after.state);
    if (outcome !== undefined && view) view = { ...view, failureRate: foldFailureRate(view.failureRate, outcome === 'failed') };
  }

  const nextQueue: QueueDoc = { ...queue, view, nextSeq, position };
  const nextPr: PrDoc | null = pr && pr !== current?.view ? { view: pr, generation: queue.generation, position } : docs.pr;
  return { queue: nextQueue, pr: nextPr };
};

const createdQueue = (previous: QueueDoc | null, e: QueueCreated, position: string): QueueDoc => {
  const d = e.data;
  return {
    view: {
      queueId: d.queueId,
      repo: { ...d.repo },
      branch: d.branch,
      state: d.state,
      settings: { ...d.settings },
      requiredStatuses: [...d.requiredStatuses],
      ...(d.statusReporters && Object.keys(d.statusReporters).length > 0 ? { statusReporters: d.statusReporters } : {}),
      createdAt: d.at,
      updatedAt: d.at,
    },
    generation: (previous?.generation ?? 0) + 1,
    nextSeq: 0,
    position,
  };
};
