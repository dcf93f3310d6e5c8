import type { ImpactedTargetsSet, TargetsRef } from '../events';
import { foldQueue, targetsFor } from '../state';
import { NOW, given } from '../testing/decider-spec';
import { headShaOf, prCancelled, prSubmitted, queueCreated, readiness, targets, targetsSet, withEntryIn } from '../testing/fixtures';
import type { SetImpactedTargets } from './types';

const parallel = queueCreated({ settings: { mode: 'parallel' } });
const waitingForTargets = prSubmitted(1, { readiness: readiness({ requiresImpactedTargets: true }), state: 'not_ready' });

const upload = (prNumber: number, ref: TargetsRef, headSha = headShaOf(prNumber)): SetImpactedTargets => ({
  type: 'SetImpactedTargets',
  prNumber,
  headSha,
  targets: ref,
});
const stored = (prNumber: number, ref: TargetsRef, headSha = headShaOf(prNumber)): ImpactedTargetsSet => ({
  type: 'ImpactedTargetsSet',
  data: { prNumber, headSha, ...ref, at: NOW },
});

describe('setImpactedTargets', () => {
  it('when the queue does not exist, then QUEUE_NOT_FOUND', () => {
    given()
      .when(upload(1, targets('d1')))
      .thenThrows('QUEUE_NOT_FOUND');
  });

  it('when the PR was not submitted yet, then the targets are stored for its head SHA', () => {
    const history = [queueCreated()];
    const events = given(history)
      .when(upload(1, targets('d1')))
      .events();
    expect(events).toStrictEqual([stored(1, targets('d1'))]);
    const s = foldQueue([...history, ...events]);
    expect(targetsFor(s, 1, headShaOf(1))).toStrictEqual(targets('d1'));
    expect(targetsFor(s, 1, 'another-sha')).toBeUndefined();
    expect(targetsFor(s, 2, headShaOf(1))).toBeUndefined();
  });

  it('when targets are uploaded for two SHAs, then each SHA keeps its own list', () => {
    const s = foldQueue([queueCreated(), targetsSet(1, 'd-old', 'old-sha'), targetsSet(1, 'd-new', 'new-sha')]);
    expect(targetsFor(s, 1, 'old-sha')?.digest).toBe('d-old');
    expect(targetsFor(s, 1, 'new-sha')?.digest).toBe('d-new');
  });

  it('when a different list is uploaded for the same SHA, then it is recorded and the last upload wins', () => {
    const history = [queueCreated(), targetsSet(1, 'd1')];
    const events = given(history)
      .when(upload(1, targets('d2', { count: 7 })))
      .events();
    expect(events).toStrictEqual([stored(1, targets('d2', { count: 7 }))]);
    expect(targetsFor(foldQueue([...history, ...events]), 1, headShaOf(1))).toStrictEqual(targets('d2', { count: 7 }));
  });

  it('when the same list (same digest) is uploaded twice, then no event', () => {
    given([queueCreated(), targetsSet(1, 'd1')])
      .when(upload(1, targets('d1')))
      .then([]);
  });

  it('when ALL replaces a list, then it is recorded', () => {
    given([queueCreated(), targetsSet(1, 'd1')])
      .when(upload(1, targets('d1', { all: true, count: 0 })))
      .then([stored(1, targets('d1', { all: true, count: 0 }))]);
  });

  it('when a parallel-mode PR waits only for targets and they arrive for its head, then it becomes pending', () => {
    given([parallel, waitingForTargets])
      .when(upload(1, targets('d1')))
      .then([
        stored(1, targets('d1')),
        {
          type: 'PrReadinessChanged',
          data: {
            prNumber: 1,
            readiness: readiness({ requiresImpactedTargets: true, hasImpactedTargets: true }),
            state: 'pending',
            reason: 'MERGE_ITEM_NOW_READY',
            at: NOW,
          },
        },
      ]);
  });

  it('when an empty list (count 0) arrives for a waiting parallel-mode PR, then it counts as uploaded: pending', () => {
    const events = given([parallel, waitingForTargets])
      .when(upload(1, targets('empty', { count: 0 })))
      .events();
    expect(foldQueue([parallel, waitingForTargets, ...events]).entries.get(1)).toMatchObject({ state: 'pending', stateChangedAt: NOW });
  });

  it('when ALL arrives for a waiting parallel-mode PR, then it becomes pending', () => {
    const events = given([parallel, waitingForTargets])
      .when(upload(1, targets('all', { all: true, count: 0 })))
      .events();
    expect(foldQueue([parallel, waitingForTargets, ...events]).entries.get(1)?.state).toBe('pending');
  });

  it('when targets arrive for a SHA other than the PR head, then they are stored and the PR stays not_ready', () => {
    given([parallel, waitingForTargets])
      .when(upload(1, targets('d1'), 'an-older-sha'))
      .then([stored(1, targets('d1'), 'an-older-sha')]);
  });

  it('when targets arrive for a parallel-mode PR that is not mergeable, then it has targets but stays not_ready', () => {
    const waiting = prSubmitted(1, {
      readiness: readiness({ requiresImpactedTargets: true, mergeability: 'not_mergeable' }),
      state: 'not_ready',
    });
    const events = given([parallel, waiting])
      .when(upload(1, targets('d1')))
      .events();
    const e = foldQueue([parallel, waiting, ...events]).entries.get(1);
    expect(e?.state).toBe('not_ready');
    expect(e?.readiness.hasImpactedTargets).toBe(true);
  });

  it('when the same list is uploaded again after the PR became pending, then no event at all', () => {
    const history = [
      parallel,
      waitingForTargets,
      ...given([parallel, waitingForTargets])
        .when(upload(1, targets('d1')))
        .events(),
    ];
    given(history)
      .when(upload(1, targets('d1')))
      .then([]);
  });

  it('when targets arrive for a cancelled PR, then they are only stored', () => {
    given([parallel, waitingForTargets, prCancelled(1)])
      .when(upload(1, targets('d1')))
      .then([stored(1, targets('d1'))]);
  });

  it('when targets arrive for a PR in testing, then they are only stored', () => {
    given(
      [parallel, prSubmitted(1, { readiness: readiness({ requiresImpactedTargets: true, hasImpactedTargets: true }) })],
      withEntryIn(1, 'testing'),
    )
      .when(upload(1, targets('d2')))
      .then([stored(1, targets('d2'))]);
  });
});
