import { DEFAULT_SETTINGS, evolve, FAILURE_RATE_PRIOR, initialQueueState, type QueueEvent } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import {
  futureEngineEvent,
  NOT_READY,
  prCancelled,
  prPriorityChanged,
  prReadinessChanged,
  prSubmitted,
  queueCreated,
  queueDeleted,
  queueStateChanged,
  READY,
  testQueueId,
} from '../../testing/fixtures';
import { RecordedEventFactory } from '../../testing/recorded';
import type { PrDoc, ProjectionDocs, QueueDoc } from './docs';
import { projectEvent } from './project';
import { queueResponse } from '../views';

const Q = testQueueId();
const T = (minute: number): string => `2026-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** Folds events for one PR number into a queue doc and that PR's doc, as a store would. */
const given = (...events: QueueEvent[]) => {
  const factory = new RecordedEventFactory(10n, 10n);
  let docs: ProjectionDocs = { queue: null, pr: null };
  const apply = (...more: QueueEvent[]): ProjectionDocs => {
    for (const e of factory.record(Q, ...more)) docs = projectEvent(docs, e);
    return docs;
  };
  apply(...events);
  return { apply, record: (...more: QueueEvent[]) => factory.record(Q, ...more), docs: () => docs };
};

const queueOf = (docs: ProjectionDocs): QueueDoc => {
  if (!docs.queue) throw new Error('no queue doc');
  return docs.queue;
};
const prOf = (docs: ProjectionDocs): PrDoc => {
  if (!docs.pr) throw new Error('no pr doc');
  return docs.pr;
};

describe('projectEvent', () => {
  describe('queue events', () => {
    it('when a queue is created, then its view holds the event data and its first generation starts', () => {
      const docs = given(queueCreated(Q, T(0), 'paused')).docs();
      expect(docs.queue).toEqual({
        view: {
          queueId: Q,
          repo: { host: 'github.com', owner: 'acme', name: 'rails' },
          branch: 'main',
          state: 'paused',
          settings: DEFAULT_SETTINGS,
          requiredStatuses: ['ci/build'],
          createdAt: T(0),
          updatedAt: T(0),
        },
        generation: 1,
        nextSeq: 0,
        position: '10',
      });
    });

    it('when the config is updated, then changed settings merge in and updatedAt moves', () => {
      const docs = given(queueCreated(Q, T(0)), {
        type: 'QueueConfigUpdated',
        data: { changes: { concurrency: 3, mode: 'parallel' }, at: T(1) },
      }).docs();
      const view = queueOf(docs).view;
      expect(view?.settings).toEqual({ ...DEFAULT_SETTINGS, concurrency: 3, mode: 'parallel' });
      expect(view?.requiredStatuses).toEqual(['ci/build']);
      expect(view?.updatedAt).toBe(T(1));
      expect(view?.createdAt).toBe(T(0));
    });

    it('when the config update clears the required statuses, then the list is empty', () => {
      const docs = given(queueCreated(Q, T(0)), {
        type: 'QueueConfigUpdated',
        data: { changes: {}, requiredStatuses: null, at: T(1) },
      }).docs();
      expect(queueOf(docs).view?.requiredStatuses).toEqual([]);
    });

    it('when the queue state changes with and then without a pending mode, then the pending mode comes and goes', () => {
      const g = given(queueCreated(Q, T(0)), {
        type: 'QueueStateChanged',
        data: { from: 'running', to: 'switching_modes', pendingMode: 'parallel', at: T(1) },
      });
      expect(queueOf(g.docs()).view).toMatchObject({ state: 'switching_modes', pendingMode: 'parallel', updatedAt: T(1) });
      const view = queueOf(g.apply(queueStateChanged('switching_modes', 'running', T(2)))).view;
      expect(view?.state).toBe('running');
      expect(view).not.toHaveProperty('pendingMode');
    });

    it('when the queue is deleted, then its view is gone but the generation is kept', () => {
      const docs = given(queueCreated(Q, T(0)), queueDeleted(T(1))).docs();
      expect(docs.queue).toMatchObject({ view: null, generation: 1, position: '20' });
    });

    it('when a deleted queue is created again, then a new generation starts with its own sequence', () => {
      const docs = given(
        queueCreated(Q, T(0)),
        prSubmitted(1, T(1)),
        prCancelled(1, T(2)),
        queueDeleted(T(3)),
        queueCreated(Q, T(4)),
      ).docs();
      expect(queueOf(docs)).toMatchObject({ generation: 2, nextSeq: 0 });
      expect(queueOf(docs).view?.createdAt).toBe(T(4));
    });
  });

  describe('PR events', () => {
    it('when a PR is submitted, then every field of its view is set and the queue counts the submission', () => {
      const docs = given(queueCreated(Q, T(0)), prSubmitted(7, T(1), { defaulted: true })).docs();
      expect(prOf(docs)).toEqual({
        view: {
          queueId: Q,
          id: 'entry-7',
          prNumber: 7,
          prTitle: 'PR 7',
          prSha: 'sha-7',
          prBaseBranch: 'main',
          prAuthor: 'dev-7',
          state: 'pending',
          stateChangedAt: T(1),
          stateReason: { code: 'API_REQUESTED' },
          priorityValue: 100,
          priorityName: 'medium',
          usedDefaultPriorityName: 'medium',
          skipTheLine: false,
          forceEnqueued: false,
          isCurrentlySubmittedToQueue: true,
          noBatch: false,
          readiness: READY,
          submittedAt: T(1),
          seq: 0,
        },
        generation: 1,
        position: '20',
      });
      expect(queueOf(docs)).toMatchObject({ nextSeq: 1, position: '20' });
    });

    it('when a PR is submitted with priority 0, then it skips the line', () => {
      const docs = given(queueCreated(Q, T(0)), prSubmitted(1, T(1), { priorityValue: 0, priorityName: 'urgent' })).docs();
      expect(prOf(docs).view.skipTheLine).toBe(true);
    });

    it('when the priority changes, then priority fields move and the state and its time stay', () => {
      const docs = given(
        queueCreated(Q, T(0)),
        prSubmitted(1, T(1), { defaulted: true }),
        prPriorityChanged(1, T(2), 0, 'urgent', true),
      ).docs();
      const view = prOf(docs).view;
      expect(view).toMatchObject({
        priorityValue: 0,
        priorityName: 'urgent',
        skipTheLine: true,
        noBatch: true,
        state: 'pending',
        stateChangedAt: T(1),
      });
      expect(view).not.toHaveProperty('usedDefaultPriorityName');
      expect(prOf(docs).position).toBe('30');
    });

    it('when readiness changes the state, then readiness, state and stateChangedAt move', () => {
      const docs = given(queueCreated(Q, T(0)), prSubmitted(1, T(1), { readiness: NOT_READY }), prReadinessChanged(1, T(2), READY)).docs();
      expect(prOf(docs).view).toMatchObject({ readiness: READY, state: 'pending', stateChangedAt: T(2) });
    });

    it('when readiness changes but the state does not, then stateChangedAt stays', () => {
      const other = { ...NOT_READY, doesBaseBranchMatch: false };
      const docs = given(queueCreated(Q, T(0)), prSubmitted(1, T(1), { readiness: NOT_READY }), prReadinessChanged(1, T(2), other)).docs();
      expect(prOf(docs).view).toMatchObject({ readiness: other, state: 'not_ready', stateChangedAt: T(1) });
    });

    it('when a PR is cancelled, then it is terminal and no longer submitted', () => {
      const docs = given(queueCreated(Q, T(0)), prSubmitted(1, T(1)), prCancelled(1, T(2))).docs();
      expect(prOf(docs).view).toMatchObject({ state: 'cancelled', stateChangedAt: T(2), isCurrentlySubmittedToQueue: false });
    });

    it('when tests are restarted, then the PR is pending again', () => {
      const docs = given(queueCreated(Q, T(0)), prSubmitted(1, T(1)), {
        type: 'TestsRestarted',
        data: { prNumber: 1, reason: 'TESTS_RESTARTED_BY_API_REQUEST', at: T(2) },
      }).docs();
      expect(prOf(docs).view).toMatchObject({ state: 'pending', stateChangedAt: T(1) });
    });

    it('when impacted targets are set, then the PR view is unchanged (the write side emits PrReadinessChanged)', () => {
      const g = given(queueCreated(Q, T(0)), prSubmitted(1, T(1)));
      const before = g.docs().pr;
      const after = g.apply({
        type: 'ImpactedTargetsSet',
        data: { prNumber: 1, headSha: 'sha-1', digest: 'd', count: 3, all: false, at: T(2) },
      });
      expect(after.pr).toBe(before);
      expect(queueOf(after).position).toBe('30');
    });

    it('when a PR is re-submitted after it left, then its view starts over with a new sequence number', () => {
      const docs = given(
        queueCreated(Q, T(0)),
        prSubmitted(1, T(1)),
        prCancelled(1, T(2)),
        prSubmitted(1, T(3), { priorityValue: 10, priorityName: 'high' }),
      ).docs();
      expect(prOf(docs).view).toMatchObject({
        state: 'pending',
        submittedAt: T(3),
        stateChangedAt: T(3),
        seq: 1,
        priorityValue: 10,
        isCurrentlySubmittedToQueue: true,
      });
    });

    it('when an event names a PR the queue never had, then nothing is created', () => {
      const docs = given(queueCreated(Q, T(0)), prCancelled(9, T(1))).docs();
      expect(docs.pr).toBeNull();
    });
  });

  describe('generations', () => {
    it('when the queue was re-created, then events about a PR of the old generation change nothing', () => {
      const g = given(queueCreated(Q, T(0)), prSubmitted(1, T(1)), prCancelled(1, T(2)), queueDeleted(T(3)), queueCreated(Q, T(4)));
      const old = g.docs().pr;
      const docs = g.apply(prReadinessChanged(1, T(5), NOT_READY));
      expect(docs.pr).toBe(old);
    });

    it('when a PR is submitted to the re-created queue, then its doc joins the new generation', () => {
      const docs = given(
        queueCreated(Q, T(0)),
        prSubmitted(1, T(1)),
        prCancelled(1, T(2)),
        queueDeleted(T(3)),
        queueCreated(Q, T(4)),
        prSubmitted(1, T(5)),
      ).docs();
      expect(prOf(docs)).toMatchObject({ generation: 2, view: { seq: 0, submittedAt: T(5) } });
    });

    it('when the queue is deleted, then later PR events are ignored', () => {
      const g = given(queueCreated(Q, T(0)), prSubmitted(1, T(1)), prCancelled(1, T(2)), queueDeleted(T(3)));
      const before = g.docs();
      const after = g.apply(prSubmitted(2, T(4)));
      expect(after).toBe(before);
    });
  });

  describe('idempotence and robustness', () => {
    it('when an event at or below the queue position comes again, then the same documents come back', () => {
      const g = given(queueCreated(Q, T(0)));
      const [submitted] = g.record(prSubmitted(1, T(1)));
      const once = projectEvent(g.docs(), submitted as RecordedEvent);
      expect(projectEvent(once, submitted as RecordedEvent)).toBe(once);
    });

    it('when an event comes before its queue exists, then nothing is created', () => {
      const [e] = new RecordedEventFactory().record(Q, prSubmitted(1, T(0)));
      expect(projectEvent({ queue: null, pr: null }, e as RecordedEvent)).toEqual({ queue: null, pr: null });
    });

    it('when an event is from a stream that is not a queue, then it is ignored', () => {
      const g = given(queueCreated(Q, T(0)));
      const [e] = g.record(prSubmitted(1, T(1)));
      const foreign = { ...(e as RecordedEvent), streamId: 'audit-1' };
      expect(projectEvent(g.docs(), foreign)).toBe(g.docs());
    });

    it('when an event type is unknown, then no error is raised and only the queue position moves', () => {
      const g = given(queueCreated(Q, T(0)), prSubmitted(1, T(1)));
      const before = g.docs();
      const after = g.apply(futureEngineEvent('TestRunStarted', { prNumber: 1, testRunId: 'r1', at: T(2) }));
      expect(after.pr).toBe(before.pr);
      expect(queueOf(after)).toEqual({ ...queueOf(before), position: '30' });
    });
  });

  describe("the queue's failure rate", () => {
    const failedPr = (n: number, at: string): QueueEvent => ({
      type: 'PrFailed',
      data: { prNumber: n, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'tests failed', at },
    });

    it('when PRs fail or are cancelled, then a failure moves the estimate as the write side does and a cancellation does not', () => {
      const events = [queueCreated(Q, T(0)), prSubmitted(1, T(1)), failedPr(1, T(2)), prSubmitted(2, T(3)), prCancelled(2, T(4))];
      const read = given(...events).docs();
      const write = events.reduce(evolve, initialQueueState());
      expect(queueOf(read).view?.failureRate).toBeGreaterThan(FAILURE_RATE_PRIOR);
      expect(queueOf(read).view?.failureRate).toBe(write.failureRate);
    });

    it('when the queue batches, then its answer shows the batch size in use and the estimate', () => {
      const h = given(queueCreated(Q, T(0)), prSubmitted(1, T(1)), failedPr(1, T(2)));
      const view = queueOf(h.docs()).view;
      if (!view) throw new Error('no view');
      expect(queueResponse({ ...view, settings: { ...view.settings, batch: true, batchingMaxSize: 12 } })).toMatchObject({
        batchSize: 4,
        batchingMaxSize: 12,
        failureRate: 0.118,
      });
      expect(queueResponse(view)).not.toHaveProperty('batchSize');
    });
  });
});
