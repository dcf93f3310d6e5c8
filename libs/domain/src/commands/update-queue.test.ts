import { MAX_UINT32, type QueueSettings } from '../config';
import { foldQueue } from '../state';
import { NOW, given } from '../testing/decider-spec';
import {
  prCancelled,
  prSubmitted,
  queueCreated,
  queueDeleted,
  queueStateChanged,
  readiness,
  targetsSet,
  withEntryIn,
} from '../testing/fixtures';
import type { QueueSettingsInput, UpdateQueue } from './types';

const update = (o: Omit<UpdateQueue, 'type'> = {}): UpdateQueue => ({ type: 'UpdateQueue', ...o });
const settings = (s: QueueSettingsInput): UpdateQueue => update({ settings: s });

const INTEGER_FIELDS = [
  'concurrency',
  'bisectionConcurrency',
  'testingTimeoutMinutes',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
] as const;
/** Every integer setting at 7, so that 1 and 2^32-1 are real changes. */
const sevens: Partial<QueueSettings> = Object.fromEntries([...INTEGER_FIELDS, 'pendingFailureDepth'].map((k) => [k, 7]));
const created = queueCreated({ settings: sevens });

const configUpdated = (changes: Partial<QueueSettings>, requiredStatuses?: string[] | null) => ({
  type: 'QueueConfigUpdated' as const,
  data: { changes, ...(requiredStatuses !== undefined ? { requiredStatuses } : {}), at: NOW },
});

describe('updateQueue', () => {
  it('when the queue does not exist, then QUEUE_NOT_FOUND', () => {
    given()
      .when(settings({ concurrency: 2 }))
      .thenThrows('QUEUE_NOT_FOUND');
  });

  it('when the queue was deleted, then QUEUE_NOT_FOUND', () => {
    given([created, queueDeleted()])
      .when(update({ state: 'paused' }))
      .thenThrows('QUEUE_NOT_FOUND');
  });

  describe.each(INTEGER_FIELDS)('the range of %s is 1..4294967295', (field) => {
    it.each([1, 2, MAX_UINT32])(`when ${field} is set to %d, then the change is recorded`, (value) => {
      given([created])
        .when(settings({ [field]: value }))
        .then([configUpdated({ [field]: value })]);
    });

    it.each([0, -1, MAX_UINT32 + 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
      `when ${field} is set to %p, then INVALID_ARGUMENT`,
      (value) => {
        given([created])
          .when(settings({ [field]: value }))
          .thenThrows('INVALID_ARGUMENT');
      },
    );
  });

  describe('the range of pendingFailureDepth is 0..4294967295 (0 is its documented default)', () => {
    it.each([0, 1, MAX_UINT32])('when pendingFailureDepth is set to %d, then the change is recorded', (value) => {
      given([created])
        .when(settings({ pendingFailureDepth: value }))
        .then([configUpdated({ pendingFailureDepth: value })]);
    });

    it.each([-1, MAX_UINT32 + 1, 2.5, Number.NaN])('when pendingFailureDepth is set to %p, then INVALID_ARGUMENT', (value) => {
      given([created])
        .when(settings({ pendingFailureDepth: value }))
        .thenThrows('INVALID_ARGUMENT');
    });

    it.each([0, 2])('when flakeRetryConcurrency is set to %d, then the change is recorded', (value) => {
      given([created])
        .when(settings({ flakeRetryConcurrency: value }))
        .then([configUpdated({ flakeRetryConcurrency: value })]);
    });

    it.each([-1, 1.5, MAX_UINT32 + 1])('when flakeRetryConcurrency is set to %p, then INVALID_ARGUMENT', (value) => {
      given([created])
        .when(settings({ flakeRetryConcurrency: value }))
        .thenThrows('INVALID_ARGUMENT');
    });
  });

  it('when one invalid field comes with valid ones, then nothing is recorded and INVALID_ARGUMENT', () => {
    given([created])
      .when(update({ settings: { batch: true, concurrency: 0 }, state: 'paused' }))
      .thenThrows('INVALID_ARGUMENT');
  });

  it('when some given fields equal the current settings, then only the changed fields land in the event', () => {
    given([created])
      .when(settings({ concurrency: 7, batch: true, mergeMethod: 'squash', commentsEnabled: false, pendingFailureDepth: 7 }))
      .then([configUpdated({ batch: true, commentsEnabled: false })]);
  });

  it('when every boolean and enum setting changes, then they all land in one event', () => {
    const changes: Partial<QueueSettings> = {
      canOptimisticallyMerge: true,
      batch: true,
      commentsEnabled: false,
      commandsEnabled: false,
      createPrsForTestingBranches: false,
      statusCheckEnabled: false,
      directMergeMode: 'always',
      optimizationMode: 'bisection_skip_redundant_tests',
      mergeMethod: 'rebase',
    };
    given([created])
      .when(settings(changes))
      .then([configUpdated(changes)]);
  });

  it('when nothing given differs from the queue, then no event', () => {
    given([created])
      .when(update({ settings: { ...sevens, mode: 'single', mergeMethod: 'squash' }, state: 'running' }))
      .then([]);
  });

  it('when the update is empty, then no event', () => {
    given([created]).when(update()).then([]);
  });

  it('when a setting is present but undefined, then it is treated as absent', () => {
    given([created])
      .when(settings({ concurrency: undefined, batch: true }))
      .then([configUpdated({ batch: true })]);
  });

  it('when only undefined settings come during a mode switch, then nothing is refused and nothing changes', () => {
    given([created, queueStateChanged('running', 'switching_modes', 'parallel')])
      .when(update({ settings: { concurrency: undefined } }))
      .then([]);
  });

  it('when a state change comes during a mode switch, then it is refused so the pending switch is not lost', () => {
    given([created, queueStateChanged('running', 'switching_modes', 'parallel')])
      .when(update({ settings: { concurrency: undefined }, state: 'paused' }))
      .thenThrows('MODE_CHANGE_IN_PROGRESS');
  });

  describe('required statuses', () => {
    const withList = queueCreated({ requiredStatuses: ['ci', 'lint'] });

    it('when a list is given, then it overrides, duplicates dropped', () => {
      given([created])
        .when(update({ requiredStatuses: ['ci', 'lint', 'ci'] }))
        .then([configUpdated({}, ['ci', 'lint'])]);
    });

    it('when the same list is given again, then no event', () => {
      given([withList])
        .when(update({ requiredStatuses: ['ci', 'lint'] }))
        .then([]);
    });

    it('when an empty list is given, then it is ignored and the current list stays', () => {
      given([withList])
        .when(update({ requiredStatuses: [] }))
        .then([]);
    });

    it('when deleteRequiredStatuses is true, then the list is cleared (null)', () => {
      given([withList])
        .when(update({ deleteRequiredStatuses: true }))
        .then([configUpdated({}, null)]);
    });

    it('when deleteRequiredStatuses comes with an empty list, then the list is cleared', () => {
      given([withList])
        .when(update({ deleteRequiredStatuses: true, requiredStatuses: [] }))
        .then([configUpdated({}, null)]);
    });

    it('when deleteRequiredStatuses is true and no list is set, then no event', () => {
      given([created])
        .when(update({ deleteRequiredStatuses: true }))
        .then([]);
    });

    it('when a list and deleteRequiredStatuses come together, then INVALID_ARGUMENT', () => {
      given([withList])
        .when(update({ deleteRequiredStatuses: true, requiredStatuses: ['ci'] }))
        .thenThrows('INVALID_ARGUMENT');
    });

    it('when a name in the list is blank, then INVALID_ARGUMENT', () => {
      given([created])
        .when(update({ requiredStatuses: ['ci', ''] }))
        .thenThrows('INVALID_ARGUMENT');
    });

    it('when a list comes with a setting, then both land in one event and the state holds both', () => {
      const events = given([created])
        .when(update({ settings: { batch: true }, requiredStatuses: ['build'] }))
        .events();
      expect(events).toStrictEqual([configUpdated({ batch: true }, ['build'])]);
      const s = foldQueue([created, ...events]);
      expect(s.requiredStatuses).toStrictEqual(['build']);
      expect(s.settings.batch).toBe(true);
    });
  });

  describe('queue state', () => {
    it.each([
      ['running', 'paused'],
      ['running', 'draining'],
      ['paused', 'running'],
      ['draining', 'running'],
      ['paused', 'draining'],
    ] as const)('when a %s queue is set to %s, then QueueStateChanged', (from, to) => {
      given([queueCreated({ state: from })])
        .when(update({ state: to }))
        .then([{ type: 'QueueStateChanged', data: { from, to, at: NOW } }]);
    });

    it('when the requested state is the current one, then no event', () => {
      given([queueCreated({ state: 'paused' })])
        .when(update({ state: 'paused' }))
        .then([]);
    });

    it('when settings and a state come together, then the config event comes first', () => {
      given([created])
        .when(update({ settings: { batch: true }, state: 'draining' }))
        .then([configUpdated({ batch: true }), { type: 'QueueStateChanged', data: { from: 'running', to: 'draining', at: NOW } }]);
    });
  });

  describe('mode', () => {
    it('when the mode is set to the current one, then no event', () => {
      given([created])
        .when(settings({ mode: 'single' }))
        .then([]);
    });

    it('when the queue is empty and the mode changes, then the change is immediate', () => {
      given([created])
        .when(settings({ mode: 'parallel' }))
        .then([configUpdated({ mode: 'parallel' })]);
    });

    it('when a pending PR without targets waits and the mode goes parallel, then it goes not_ready at once', () => {
      given([created, prSubmitted(1)])
        .when(settings({ mode: 'parallel' }))
        .then([
          configUpdated({ mode: 'parallel' }),
          {
            type: 'PrReadinessChanged',
            data: {
              prNumber: 1,
              readiness: readiness({ requiresImpactedTargets: true }),
              state: 'not_ready',
              reason: 'MERGE_ITEM_NO_LONGER_READY',
              at: NOW,
            },
          },
        ]);
    });

    it('when the mode goes parallel and back to single, then the PR goes not_ready and back to pending', () => {
      const history = [created, prSubmitted(1)];
      const toParallel = given(history)
        .when(settings({ mode: 'parallel' }))
        .events();
      expect(foldQueue([...history, ...toParallel]).entries.get(1)?.state).toBe('not_ready');

      given([...history, ...toParallel])
        .when(settings({ mode: 'single' }))
        .then([
          configUpdated({ mode: 'single' }),
          {
            type: 'PrReadinessChanged',
            data: { prNumber: 1, readiness: readiness(), state: 'pending', reason: 'MERGE_ITEM_NOW_READY', at: NOW },
          },
        ]);
    });

    it('when the mode goes parallel, then a PR with targets for its head stays pending and an unmergeable one stays not_ready', () => {
      const history = [
        created,
        targetsSet(2, 'd2'),
        prSubmitted(2, { readiness: readiness({ hasImpactedTargets: true }) }),
        prSubmitted(3, { readiness: readiness({ mergeability: 'not_mergeable' }), state: 'not_ready' }),
        targetsSet(4, 'd4', 'an-older-sha'),
        prSubmitted(4),
      ];
      const events = given(history)
        .when(settings({ mode: 'parallel' }))
        .events();
      const s = foldQueue([...history, ...events]);
      expect(s.settings.mode).toBe('parallel');
      expect([2, 3, 4].map((n) => s.entries.get(n)?.state)).toStrictEqual(['pending', 'not_ready', 'not_ready']);
      expect([2, 3, 4].map((n) => s.entries.get(n)?.readiness.requiresImpactedTargets)).toStrictEqual([true, true, true]);
    });

    it('when only terminal PRs are in the queue, then the mode change is immediate and they are left alone', () => {
      given([created, prSubmitted(1), prCancelled(1)])
        .when(settings({ mode: 'parallel' }))
        .then([configUpdated({ mode: 'parallel' })]);
    });

    it.each(['testing', 'tests_passed', 'pending_failure'] as const)(
      'when a PR is %s and the mode changes, then the queue enters switching_modes with the pending mode and the mode stays',
      (inFlight) => {
        given([created, prSubmitted(1), prSubmitted(2)], withEntryIn(1, inFlight))
          .when(update({ settings: { mode: 'parallel', batch: true } }))
          .then([
            configUpdated({ batch: true }),
            { type: 'QueueStateChanged', data: { from: 'running', to: 'switching_modes', pendingMode: 'parallel', at: NOW } },
          ]);
      },
    );

    it('when the queue is switching modes, then configuration changes are refused with MODE_CHANGE_IN_PROGRESS', () => {
      const switching = [created, queueStateChanged('running', 'switching_modes', 'parallel')];
      given(switching)
        .when(settings({ batch: true }))
        .thenThrows('MODE_CHANGE_IN_PROGRESS');
      given(switching)
        .when(update({ requiredStatuses: ['ci'] }))
        .thenThrows('MODE_CHANGE_IN_PROGRESS');
      given(switching)
        .when(update({ deleteRequiredStatuses: true }))
        .thenThrows('MODE_CHANGE_IN_PROGRESS');
    });
  });
});

describe('updateQueue: statusReporters', () => {
  const reporters = (statusReporters: Record<string, string[]>) => ({
    type: 'QueueConfigUpdated' as const,
    data: { changes: {}, statusReporters, at: NOW },
  });

  it('when who reports a context is named, then the map is recorded with each name once, and the state holds it', () => {
    given([created])
      .when(update({ statusReporters: { test: ['jenkins', 'jenkins', 'github-app:ci'] } }))
      .then([reporters({ test: ['jenkins', 'github-app:ci'] })]);
    expect(foldQueue([created, reporters({ test: ['jenkins'] })]).statusReporters).toEqual({ test: ['jenkins'] });
  });

  it('when the same map is given again, then nothing is recorded; {} clears it', () => {
    given([created, reporters({ test: ['jenkins'] })])
      .when(update({ statusReporters: { test: ['jenkins'] } }))
      .then([]);
    given([created, reporters({ test: ['jenkins'] })])
      .when(update({ statusReporters: {} }))
      .then([reporters({})]);
  });

  it('when a context names nobody or an empty name, then INVALID_ARGUMENT', () => {
    given([created])
      .when(update({ statusReporters: { test: [] } }))
      .thenThrows('INVALID_ARGUMENT');
    given([created])
      .when(update({ statusReporters: { ' ': ['jenkins'] } }))
      .thenThrows('INVALID_ARGUMENT');
  });
});
