import type { PrSubmitted, QueueEvent } from '../events';
import type { PriorityName } from '../priority';
import { byQueueOrder, foldQueue } from '../state';
import { NOW, given } from '../testing/decider-spec';
import {
  headShaOf,
  prCancelled,
  prSubmitted,
  PRIORITY_NAME_CASES,
  queueCreated,
  queueStateChanged,
  readiness,
  submit,
  targetsSet,
  withEntryIn,
} from '../testing/fixtures';

const parallel = queueCreated({ settings: { mode: 'parallel' } });

/** The PrSubmitted decide records for PR `n` at NOW, for a first submission (fresh id `id-1`). */
const submitted = (n: number, o: Partial<PrSubmitted['data']> = {}): PrSubmitted => prSubmitted(n, { entryId: 'id-1', at: NOW, ...o });

const withoutDefault = (e: PrSubmitted): PrSubmitted => {
  const { usedDefaultPriorityName: _dropped, ...data } = e.data;
  return { ...e, data };
};

const priorityChanged = (
  prNumber: number,
  priorityValue: number,
  priorityName: PriorityName,
  usedDefaultPriorityName: PriorityName | undefined,
  noBatch = false,
): QueueEvent => ({
  type: 'PrPriorityChanged',
  data: { prNumber, priorityValue, priorityName, usedDefaultPriorityName, noBatch, at: NOW },
});

describe('submitPullRequest', () => {
  it('when the queue does not exist, then QUEUE_NOT_FOUND', () => {
    given().when(submit(1)).thenThrows('QUEUE_NOT_FOUND');
  });

  describe('readiness', () => {
    it('when the PR is mergeable and targets the queue branch, then PrSubmitted in pending with a new entry id and the default priority', () => {
      given([queueCreated()])
        .when(submit(1))
        .then([submitted(1)]);
    });

    it.each(['not_mergeable', 'in_progress', 'unspecified'] as const)(
      'when the Git host says %s, then PrSubmitted in not_ready',
      (mergeability) => {
        given([queueCreated()])
          .when(submit(1, { pr: { mergeability } }))
          .then([submitted(1, { readiness: readiness({ mergeability }), state: 'not_ready' })]);
      },
    );

    it('when the PR base is another branch, then PrSubmitted in not_ready with doesBaseBranchMatch false', () => {
      given([queueCreated()])
        .when(submit(1, { pr: { baseBranch: 'develop' } }))
        .then([submitted(1, { baseBranch: 'develop', readiness: readiness({ doesBaseBranchMatch: false }), state: 'not_ready' })]);
    });

    it('when the queue is parallel and no targets were uploaded, then not_ready and impacted targets are required', () => {
      given([parallel])
        .when(submit(1))
        .then([submitted(1, { readiness: readiness({ requiresImpactedTargets: true }), state: 'not_ready' })]);
    });

    it('when the queue is parallel and targets were uploaded for the head SHA, then pending', () => {
      given([parallel, targetsSet(1, 'd1')])
        .when(submit(1))
        .then([submitted(1, { readiness: readiness({ requiresImpactedTargets: true, hasImpactedTargets: true }) })]);
    });

    it('when the queue is parallel and targets were uploaded only for another SHA, then they do not count: not_ready', () => {
      given([parallel, targetsSet(1, 'd1', 'an-older-sha')])
        .when(submit(1))
        .then([submitted(1, { readiness: readiness({ requiresImpactedTargets: true }), state: 'not_ready' })]);
    });

    it('when the queue is parallel and targets of another PR exist for the same SHA, then they do not count: not_ready', () => {
      given([parallel, targetsSet(2, 'd2', headShaOf(1))])
        .when(submit(1))
        .then([submitted(1, { readiness: readiness({ requiresImpactedTargets: true }), state: 'not_ready' })]);
    });

    it('when the queue is parallel and the PR has targets but is not mergeable, then not_ready', () => {
      given([parallel, targetsSet(1, 'd1')])
        .when(submit(1, { pr: { mergeability: 'not_mergeable' } }))
        .then([
          submitted(1, {
            readiness: readiness({ requiresImpactedTargets: true, hasImpactedTargets: true, mergeability: 'not_mergeable' }),
            state: 'not_ready',
          }),
        ]);
    });

    it('when the queue is single and targets were uploaded, then they are recorded in readiness but not required', () => {
      given([queueCreated(), targetsSet(1, 'd1')])
        .when(submit(1))
        .then([submitted(1, { readiness: readiness({ hasImpactedTargets: true }) })]);
    });
  });

  describe('priority', () => {
    it.each([
      ['urgent', 0],
      ['high', 10],
      ['medium', 100],
      ['low', 200],
    ] as const)('when submitted with priority %s, then its value is %d and no default is recorded', (name, value) => {
      given([queueCreated()])
        .when(submit(1, { priority: name }))
        .then([withoutDefault(submitted(1, { priorityName: name, priorityValue: value }))]);
    });

    it.each(PRIORITY_NAME_CASES)('when submitted with priority %d, then it is named %s', (value, name) => {
      given([queueCreated()])
        .when(submit(1, { priority: value }))
        .then([withoutDefault(submitted(1, { priorityName: name, priorityValue: value }))]);
    });

    it('when submitted with priority 0, then it skips the line: it goes ahead of every PR waiting, whatever their priority', () => {
      const history = [queueCreated(), prSubmitted(1, { priorityValue: 10, priorityName: 'high' }), prSubmitted(2)];
      const s = foldQueue([
        ...history,
        ...given(history)
          .when(submit(3, { priority: 0 }))
          .events(),
      ]);
      expect([...s.entries.values()].sort(byQueueOrder).map((e) => e.prNumber)).toStrictEqual([3, 1, 2]);
    });

    it.each([256, -1, 1.5, Number.NaN, 4294967295])('when submitted with priority %p, then INVALID_ARGUMENT', (value) => {
      given([queueCreated()])
        .when(submit(1, { priority: value }))
        .thenThrows('INVALID_ARGUMENT');
    });

    it('when submitted without a priority, then it is medium (100) and usedDefaultPriorityName is medium', () => {
      const [event] = given([queueCreated()]).when(submit(1)).events();
      expect(event?.data).toMatchObject({ priorityValue: 100, priorityName: 'medium', usedDefaultPriorityName: 'medium' });
    });

    it('when submitted with noBatch, then the entry is marked noBatch', () => {
      given([queueCreated()])
        .when(submit(1, { noBatch: true }))
        .then([submitted(1, { noBatch: true })]);
    });
  });

  describe('re-submission of a PR that is still in the queue', () => {
    it('when re-submitted with a new priority, then PrPriorityChanged, the default mark cleared, and the entry, its id and place kept', () => {
      const history = [queueCreated(), prSubmitted(1), prSubmitted(2)];
      const events = given(history)
        .when(submit(1, { priority: 'high' }))
        .events();
      expect(events).toStrictEqual([priorityChanged(1, 10, 'high', undefined)]);
      const s = foldQueue([...history, ...events]);
      expect(s.entries.get(1)).toMatchObject({ entryId: 'entry-1', seq: 0, state: 'pending', priorityValue: 10, priorityName: 'high' });
      expect(s.entries.get(1)?.usedDefaultPriorityName).toBeUndefined();
      expect(s.entries.size).toBe(2);
    });

    it('when re-submitted with a number that keeps the name but changes the value, then PrPriorityChanged', () => {
      given([queueCreated(), prSubmitted(1)])
        .when(submit(1, { priority: 50 }))
        .then([priorityChanged(1, 50, 'medium', undefined)]);
    });

    it('when re-submitted with only noBatch changed, then PrPriorityChanged keeps the priority and the default mark', () => {
      given([queueCreated(), prSubmitted(1)])
        .when(submit(1, { noBatch: true }))
        .then([priorityChanged(1, 100, 'medium', 'medium', true)]);
    });

    it('when re-submitted with nothing new, then no events', () => {
      given([queueCreated(), prSubmitted(1)])
        .when(submit(1))
        .then([]);
    });

    it('when re-submitted with the priority and noBatch it already has, then no events', () => {
      given([queueCreated(), prSubmitted(1, { priorityValue: 10, priorityName: 'high', usedDefaultPriorityName: undefined })])
        .when(submit(1, { priority: 'high', noBatch: false }))
        .then([]);
    });

    it('when a not_ready PR is re-submitted with nothing new, then no events and it stays not_ready', () => {
      given([queueCreated(), prSubmitted(1, { state: 'not_ready', readiness: readiness({ mergeability: 'in_progress' }) })])
        .when(submit(1, { pr: { mergeability: 'in_progress' } }))
        .then([]);
    });

    it('when a PR that is testing is re-submitted with a new priority, then PrPriorityChanged and it keeps testing', () => {
      const spec = given([queueCreated(), prSubmitted(1)], withEntryIn(1, 'testing'));
      const events = spec.when(submit(1, { priority: 'low' })).events();
      expect(events).toStrictEqual([priorityChanged(1, 200, 'low', undefined)]);
      expect(foldQueue(events, spec.state).entries.get(1)?.state).toBe('testing');
    });

    it('when the queue is draining, then a PR already in it can still be re-prioritized', () => {
      given([queueCreated({ state: 'draining' }), prSubmitted(1)])
        .when(submit(1, { priority: 'urgent' }))
        .then([priorityChanged(1, 0, 'urgent', undefined)]);
    });

    it('when re-submitted with an out-of-range priority, then INVALID_ARGUMENT', () => {
      given([queueCreated(), prSubmitted(1)])
        .when(submit(1, { priority: 256 }))
        .thenThrows('INVALID_ARGUMENT');
    });
  });

  describe('re-submission of a PR that left the queue', () => {
    it('when re-submitted after a cancel, then PrSubmitted reuses the entry id and a new cycle starts at the back', () => {
      const history = [queueCreated(), prSubmitted(1), prCancelled(1), prSubmitted(2)];
      const events = given(history).when(submit(1)).events();
      expect(events).toStrictEqual([submitted(1, { entryId: 'entry-1' })]);
      const s = foldQueue([...history, ...events]);
      expect(s.entries.get(1)).toMatchObject({ entryId: 'entry-1', state: 'pending', stateChangedAt: NOW, seq: 2 });
      expect([...s.entries.values()].sort(byQueueOrder).map((e) => e.prNumber)).toStrictEqual([2, 1]);
    });

    it.each(['merged', 'failed'] as const)('when re-submitted after it %s, then PrSubmitted reuses the entry id', (state) => {
      given([queueCreated(), prSubmitted(1)], withEntryIn(1, state))
        .when(submit(1, { priority: 'low' }))
        .then([withoutDefault(submitted(1, { entryId: 'entry-1', priorityValue: 200, priorityName: 'low' }))]);
    });

    it('when re-submitted after a cancel without a priority, then the default applies again, not the old priority', () => {
      given([
        queueCreated(),
        prSubmitted(1, { priorityValue: 0, priorityName: 'urgent', usedDefaultPriorityName: undefined }),
        prCancelled(1),
      ])
        .when(submit(1))
        .then([submitted(1, { entryId: 'entry-1' })]);
    });

    it('when re-submitted after a cancel with a new head SHA, then the entry takes the new SHA', () => {
      const events = given([queueCreated(), prSubmitted(1), prCancelled(1)])
        .when(submit(1, { pr: { headSha: 'new-sha' } }))
        .events();
      expect(events).toStrictEqual([submitted(1, { entryId: 'entry-1', headSha: 'new-sha' })]);
    });
  });

  describe('PR and queue state', () => {
    it.each(['closed', 'merged'] as const)('when the PR is %s on the Git host, then PR_NOT_OPEN', (state) => {
      given([queueCreated()])
        .when(submit(1, { pr: { state } }))
        .thenThrows('PR_NOT_OPEN');
    });

    it('when the queue is draining, then QUEUE_NOT_ACCEPTING_SUBMISSIONS', () => {
      given([queueCreated({ state: 'draining' })])
        .when(submit(1))
        .thenThrows('QUEUE_NOT_ACCEPTING_SUBMISSIONS');
    });

    it('when the queue is switching modes, then QUEUE_NOT_ACCEPTING_SUBMISSIONS', () => {
      given([queueCreated(), queueStateChanged('running', 'switching_modes', 'parallel')])
        .when(submit(1))
        .thenThrows('QUEUE_NOT_ACCEPTING_SUBMISSIONS');
    });

    it('when the queue is draining and a cancelled PR is re-submitted, then QUEUE_NOT_ACCEPTING_SUBMISSIONS', () => {
      given([queueCreated(), prSubmitted(1), prCancelled(1), queueStateChanged('running', 'draining')])
        .when(submit(1))
        .thenThrows('QUEUE_NOT_ACCEPTING_SUBMISSIONS');
    });

    it('when the queue is paused, then the submission is accepted (held until it runs)', () => {
      given([queueCreated({ state: 'paused' })])
        .when(submit(1))
        .then([submitted(1)]);
    });
  });
});

describe('re-submitting a waiting PR', () => {
  const created = queueCreated();
  const stuck = prSubmitted(7, { state: 'not_ready', readiness: readiness({ mergeability: 'not_mergeable' }) });

  it('when the host now says mergeable, then the not_ready entry becomes pending with MERGE_ITEM_NOW_READY', () => {
    given([created, stuck])
      .when(submit(7, { pr: { mergeability: 'mergeable' } }))
      .then([
        {
          type: 'PrReadinessChanged',
          data: { prNumber: 7, readiness: readiness(), state: 'pending', reason: 'MERGE_ITEM_NOW_READY', at: NOW },
        },
      ]);
  });

  it('when the host has not worked mergeability out yet, then a re-submission keeps what the queue learned', () => {
    given([created, prSubmitted(7)])
      .when(submit(7, { pr: { mergeability: 'unspecified' } }))
      .then([]);
    given([created, stuck])
      .when(submit(7, { pr: { mergeability: 'in_progress' } }))
      .then([]);
  });

  it('when a PR is first submitted before the host knows its mergeability, then it waits not_ready saying unspecified', () => {
    given([created])
      .when(submit(8, { pr: { mergeability: 'unspecified' } }))
      .then([submitted(8, { state: 'not_ready', readiness: readiness({ mergeability: 'unspecified' }) })]);
  });

  it('when a signal changes but the entry stays not_ready, then the reason says only READINESS_UPDATED', () => {
    given([created, stuck])
      .when(submit(7, { pr: { mergeability: 'not_mergeable', baseBranch: 'develop' } }))
      .then([
        {
          type: 'PrReadinessChanged',
          data: {
            prNumber: 7,
            readiness: readiness({ mergeability: 'not_mergeable', doesBaseBranchMatch: false }),
            state: 'not_ready',
            reason: 'READINESS_UPDATED',
            at: NOW,
          },
        },
      ]);
  });

  it('when the explicit priority equals the defaulted one, then the default mark is cleared', () => {
    given([created, prSubmitted(7)])
      .when(submit(7, { priority: 'medium' }))
      .then([
        {
          type: 'PrPriorityChanged',
          data: { prNumber: 7, priorityValue: 100, priorityName: 'medium', usedDefaultPriorityName: undefined, noBatch: false, at: NOW },
        },
      ]);
  });
});
