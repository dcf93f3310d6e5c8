import { DEFAULT_SETTINGS } from './config';
import { entryStateAfter, isTerminal, PR_STATES, type QueueEvent } from './events';
import { activeEntries, byQueueOrder, entryOf, evolve, foldQueue, initialQueueState, targetsFor, type Entry } from './state';
import {
  BRANCH,
  QUEUE_ID,
  REPO,
  at,
  prCancelled,
  prSubmitted,
  queueConfigUpdated,
  queueCreated,
  queueDeleted,
  queueStateChanged,
  readiness,
  targetsSet,
} from './testing/fixtures';
import { runFailed, runStarted } from './engine/testing/engine-fixtures';

const readinessChanged = (prNumber: number, state: 'pending' | 'not_ready', when: string, r = readiness()): QueueEvent => ({
  type: 'PrReadinessChanged',
  data: { prNumber, readiness: r, state, reason: state === 'pending' ? 'MERGE_ITEM_NOW_READY' : 'MERGE_ITEM_NO_LONGER_READY', at: when },
});
const restarted = (prNumber: number, when: string): QueueEvent => ({
  type: 'TestsRestarted',
  data: { prNumber, reason: 'TESTS_RESTARTED_BY_API_REQUEST', at: when },
});
const order = (entries: Entry[]): number[] => [...entries].sort(byQueueOrder).map((e) => e.prNumber);

describe('evolve', () => {
  describe('queue lifecycle', () => {
    it('when nothing happened yet, then no queue exists and it would run with the defaults', () => {
      const s = initialQueueState();
      expect(s).toMatchObject({ exists: false, runState: 'running', settings: DEFAULT_SETTINGS, requiredStatuses: [], nextSeq: 0 });
      expect(s.entries.size).toBe(0);
    });

    it('when the queue is created, then it exists with its id, repo, branch, settings, statuses and state', () => {
      const s = foldQueue([queueCreated({ settings: { concurrency: 3 }, requiredStatuses: ['ci'], state: 'paused' })]);
      expect(s).toMatchObject({
        exists: true,
        queueId: QUEUE_ID,
        repo: REPO,
        branch: BRANCH,
        runState: 'paused',
        settings: { ...DEFAULT_SETTINGS, concurrency: 3 },
        requiredStatuses: ['ci'],
      });
    });

    it('when the config is updated, then the changes merge into the settings and the rest is kept', () => {
      const s = foldQueue([queueCreated({ settings: { concurrency: 3 } }), queueConfigUpdated({ batch: true, mode: 'parallel' })]);
      expect(s.settings).toStrictEqual({ ...DEFAULT_SETTINGS, concurrency: 3, batch: true, mode: 'parallel' });
    });

    it('when the config update carries no list, then the required statuses stay; a list replaces them; null clears them', () => {
      const created = queueCreated({ requiredStatuses: ['ci'] });
      expect(foldQueue([created, queueConfigUpdated({ batch: true })]).requiredStatuses).toStrictEqual(['ci']);
      expect(foldQueue([created, queueConfigUpdated({}, ['build', 'lint'])]).requiredStatuses).toStrictEqual(['build', 'lint']);
      expect(foldQueue([created, queueConfigUpdated({}, null)]).requiredStatuses).toStrictEqual([]);
    });

    it('when the queue state changes, then runState follows, and pendingMode is held only while switching modes', () => {
      const switching = foldQueue([queueCreated(), queueStateChanged('running', 'switching_modes', 'parallel')]);
      expect(switching).toMatchObject({ runState: 'switching_modes', pendingMode: 'parallel' });
      const back = evolve(switching, queueStateChanged('switching_modes', 'running'));
      expect(back.runState).toBe('running');
      expect(back.pendingMode).toBeUndefined();
    });

    it('when the queue is deleted, then it no longer exists but its entries stay readable', () => {
      const s = foldQueue([queueCreated(), prSubmitted(1), prCancelled(1), queueDeleted()]);
      expect(s.exists).toBe(false);
      expect(entryOf(s, 1)?.state).toBe('cancelled');
    });

    it('when a deleted queue is created again, then it starts from scratch', () => {
      const s = foldQueue([
        queueCreated({ state: 'draining' }),
        prSubmitted(1),
        targetsSet(1, 'd1'),
        prCancelled(1),
        queueDeleted(),
        queueCreated(),
      ]);
      expect(s).toMatchObject({ exists: true, runState: 'running', nextSeq: 0 });
      expect(s.entries.size).toBe(0);
      expect(s.targets.size).toBe(0);
    });
  });

  describe('entries', () => {
    it('when PRs are submitted, then each entry records its facts and gets the next FIFO sequence number', () => {
      const s = foldQueue([queueCreated(), prSubmitted(7), prSubmitted(3), prSubmitted(5, { state: 'not_ready', noBatch: true })]);
      expect([7, 3, 5].map((n) => s.entries.get(n)?.seq)).toStrictEqual([0, 1, 2]);
      expect(s.nextSeq).toBe(3);
      expect(s.entries.get(5)).toStrictEqual({
        entryId: 'entry-5',
        prNumber: 5,
        title: 'PR 5',
        headSha: 'sha-5',
        author: 'octocat',
        baseBranch: BRANCH,
        priorityValue: 100,
        priorityName: 'medium',
        usedDefaultPriorityName: 'medium',
        noBatch: true,
        forceEnqueued: false,
        state: 'not_ready',
        stateChangedAt: at(5),
        stateReason: { code: 'API_REQUESTED' },
        submittedAt: at(5),
        seq: 2,
        readiness: readiness(),
      });
    });

    it('when readiness changes the state, then state and stateChangedAt move', () => {
      const s = foldQueue([queueCreated(), prSubmitted(1, { state: 'not_ready' }), readinessChanged(1, 'pending', at(20))]);
      expect(s.entries.get(1)).toMatchObject({ state: 'pending', stateChangedAt: at(20), submittedAt: at(1) });
    });

    it('when readiness changes but the state does not, then the readiness is stored and stateChangedAt stays', () => {
      const r = readiness({ hasImpactedTargets: true });
      const s = foldQueue([queueCreated(), prSubmitted(1), readinessChanged(1, 'pending', at(20), r)]);
      expect(s.entries.get(1)).toMatchObject({ state: 'pending', stateChangedAt: at(1), readiness: r });
    });

    it('when a PR is cancelled, then it is cancelled as of the event time and no longer active', () => {
      const s = foldQueue([queueCreated(), prSubmitted(1), prSubmitted(2), prCancelled(1, at(40))]);
      expect(entryOf(s, 1)).toMatchObject({ state: 'cancelled', stateChangedAt: at(40) });
      expect(activeEntries(s).map((e) => e.prNumber)).toStrictEqual([2]);
    });

    it('when tests are restarted, then the entry is pending again', () => {
      const s = foldQueue([queueCreated(), prSubmitted(1, { state: 'not_ready' }), restarted(1, at(45))]);
      expect(s.entries.get(1)).toMatchObject({ state: 'pending', stateChangedAt: at(45) });
    });

    it('when runs start with a PR stacked under them while it tests or is pending failure, then it has a successor until its own next run starts', () => {
      const history = [queueCreated(), prSubmitted(1), prSubmitted(2), prSubmitted(3), ...runStarted('r1', 1), ...runStarted('r2', 2, [1])];
      expect(foldQueue(history).entries.get(1)?.hasSuccessor).toBe(true);
      expect(foldQueue(history).entries.get(2)?.hasSuccessor).toBeUndefined();
      const failed = [...history, ...runFailed('r1', 1), ...runStarted('r3', 3, [1, 2])];
      expect(foldQueue(failed).entries.get(1)?.hasSuccessor).toBe(true);
      expect(foldQueue(failed).entries.get(2)?.hasSuccessor).toBe(true);
      expect(foldQueue([...failed, restarted(1, at(50)), ...runStarted('r4', 1)]).entries.get(1)?.hasSuccessor).toBeUndefined();
    });

    it('when the priority changes, then the entry keeps its id, sequence number, state and stateChangedAt', () => {
      const s = foldQueue([
        queueCreated(),
        prSubmitted(1),
        {
          type: 'PrPriorityChanged',
          data: { prNumber: 1, priorityValue: 10, priorityName: 'high', usedDefaultPriorityName: undefined, noBatch: true, at: at(30) },
        },
      ]);
      expect(s.entries.get(1)).toMatchObject({
        entryId: 'entry-1',
        seq: 0,
        state: 'pending',
        stateChangedAt: at(1),
        priorityValue: 10,
        priorityName: 'high',
        noBatch: true,
      });
      expect(s.entries.get(1)?.usedDefaultPriorityName).toBeUndefined();
    });

    it('when a PR is submitted again after a cancel, then the entry starts a new cycle with a new sequence number', () => {
      const s = foldQueue([queueCreated(), prSubmitted(1), prSubmitted(2), prCancelled(1), prSubmitted(1, { at: at(50) })]);
      expect(s.entries.get(1)).toMatchObject({ entryId: 'entry-1', state: 'pending', seq: 2, stateChangedAt: at(50), submittedAt: at(50) });
    });

    it('when an event names a PR that has no entry, then nothing is created', () => {
      const s = foldQueue([
        queueCreated(),
        readinessChanged(9, 'pending', at(10)),
        prCancelled(9),
        restarted(9, at(11)),
        { type: 'PrPriorityChanged', data: { prNumber: 9, priorityValue: 0, priorityName: 'urgent', noBatch: false, at: at(12) } },
      ]);
      expect(s.entries.size).toBe(0);
    });
  });

  describe('queue order (byQueueOrder)', () => {
    it('when priorities differ, then lower values go first, and FIFO by submission within one value', () => {
      const s = foldQueue([
        queueCreated(),
        prSubmitted(1),
        prSubmitted(2, { priorityValue: 200, priorityName: 'low' }),
        prSubmitted(3, { priorityValue: 0, priorityName: 'urgent' }),
        prSubmitted(4),
        prSubmitted(5, { priorityValue: 10, priorityName: 'high' }),
        prSubmitted(6, { priorityValue: 50, priorityName: 'medium' }),
        prSubmitted(7, { priorityValue: 10, priorityName: 'high' }),
      ]);
      expect(order([...s.entries.values()])).toStrictEqual([3, 5, 7, 6, 1, 4, 2]);
    });

    it('when a PR is raised to high, then it goes ahead of medium PRs but behind the high PRs submitted before it', () => {
      const s = foldQueue([
        queueCreated(),
        prSubmitted(1, { priorityValue: 10, priorityName: 'high' }),
        prSubmitted(2),
        prSubmitted(3),
        { type: 'PrPriorityChanged', data: { prNumber: 3, priorityValue: 10, priorityName: 'high', noBatch: false, at: at(20) } },
      ]);
      expect(order([...s.entries.values()])).toStrictEqual([1, 3, 2]);
    });
  });

  describe('impacted targets', () => {
    it('when a list is uploaded for a SHA again, then the last one wins', () => {
      const s = foldQueue([queueCreated(), targetsSet(1, 'd1'), targetsSet(1, 'd2')]);
      expect(targetsFor(s, 1, 'sha-1')?.digest).toBe('d2');
    });

    it('when more than 8 SHAs of one PR have lists, then the oldest upload is dropped', () => {
      const shas = Array.from({ length: 9 }, (_, i) => `sha-${i}`);
      const s = foldQueue([queueCreated(), ...shas.map((sha) => targetsSet(1, `d-${sha}`, sha))]);
      expect(targetsFor(s, 1, 'sha-0')).toBeUndefined();
      expect(shas.slice(1).every((sha) => targetsFor(s, 1, sha) !== undefined)).toBe(true);
    });

    it('when an old SHA is uploaded again before the limit is hit, then it counts as the newest and survives', () => {
      const shas = Array.from({ length: 8 }, (_, i) => `sha-${i}`);
      const s = foldQueue([
        queueCreated(),
        ...shas.map((sha) => targetsSet(1, 'd', sha)),
        targetsSet(1, 'd', 'sha-0'),
        targetsSet(1, 'd', 'sha-new'),
      ]);
      expect(targetsFor(s, 1, 'sha-0')).toBeDefined();
      expect(targetsFor(s, 1, 'sha-1')).toBeUndefined();
    });
  });
});

describe('entryStateAfter', () => {
  it('when an event does not move an entry, then undefined', () => {
    expect(entryStateAfter(queueCreated())).toBeUndefined();
    expect(entryStateAfter(targetsSet(1, 'd'))).toBeUndefined();
  });

  it('when the terminal states are listed, then they are merged, failed and cancelled', () => {
    expect(PR_STATES.filter(isTerminal)).toStrictEqual(['merged', 'failed', 'cancelled']);
  });
});
