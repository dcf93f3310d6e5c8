import { DEFAULT_SETTINGS, MAX_UINT32 } from '../config';
import { decide } from '../decide';
import { foldQueue } from '../state';
import { NOW, given, testContext } from '../testing/decider-spec';
import { BRANCH, QUEUE_ID, REPO, prCancelled, prSubmitted, queueCreated, queueDeleted, submit, targetsSet } from '../testing/fixtures';
import type { CreateQueue, QueueSettingsInput } from './types';

const create = (o: Partial<Omit<CreateQueue, 'type'>> = {}): CreateQueue => ({
  type: 'CreateQueue',
  queueId: QUEUE_ID,
  repo: REPO,
  branch: BRANCH,
  ...o,
});

describe('createQueue', () => {
  it('when a queue is created without settings, then it starts running with the default settings and no required statuses', () => {
    given()
      .when(create())
      .then([queueCreated({ at: NOW })]);
  });

  it('when the defaults are read, then they are single mode, concurrency 1, squash, depth 0, batching off, 5 h timeout, one flake re-run beside the queue', () => {
    expect(DEFAULT_SETTINGS).toStrictEqual({
      mode: 'single',
      concurrency: 1,
      bisectionConcurrency: 1,
      testingTimeoutMinutes: 300,
      pendingFailureDepth: 0,
      canOptimisticallyMerge: false,
      batch: false,
      batchingMaxWaitTimeMinutes: 5,
      batchingMinSize: 4,
      commentsEnabled: true,
      commandsEnabled: true,
      createPrsForTestingBranches: true,
      statusCheckEnabled: true,
      directMergeMode: 'off',
      optimizationMode: 'off',
      mergeMethod: 'squash',
      flakeRetries: 1,
      flakeRetryConcurrency: 1,
      unknownFailuresHoldPlace: true,
    });
  });

  it('when settings are given, then they override the defaults and every other setting keeps its default', () => {
    const [event] = given()
      .when(create({ settings: { mode: 'parallel', concurrency: 4 } }))
      .events();
    expect(event).toMatchObject({ type: 'QueueCreated', data: { settings: { ...DEFAULT_SETTINGS, mode: 'parallel', concurrency: 4 } } });
  });

  it('when a state and required statuses are given, then the queue starts in that state with the list, duplicates dropped', () => {
    const [event] = given()
      .when(create({ state: 'paused', requiredStatuses: ['ci', 'lint', 'ci'] }))
      .events();
    expect(event).toMatchObject({ data: { state: 'paused', requiredStatuses: ['ci', 'lint'] } });
  });

  it('when a setting is present but undefined, then it is treated as absent and the default stays', () => {
    const settings: QueueSettingsInput = { concurrency: undefined, mode: undefined };
    const [event] = given().when(create({ settings })).events();
    expect(event).toMatchObject({ data: { settings: DEFAULT_SETTINGS } });
    expect(foldQueue(event ? [event] : []).settings).toStrictEqual(DEFAULT_SETTINGS);
  });

  it('when the queue already exists, then QUEUE_ALREADY_EXISTS', () => {
    given([queueCreated()]).when(create()).thenThrows('QUEUE_ALREADY_EXISTS');
  });

  it('when the queue already exists but is paused, then QUEUE_ALREADY_EXISTS', () => {
    given([queueCreated({ state: 'paused' })])
      .when(create())
      .thenThrows('QUEUE_ALREADY_EXISTS');
  });

  it('when the queue was deleted, then it can be created again', () => {
    given([queueCreated(), queueDeleted()])
      .when(create({ settings: { concurrency: 2 } }))
      .then([queueCreated({ settings: { concurrency: 2 }, at: NOW })]);
  });

  it('when a deleted queue is created again, then it starts empty: no entries, no targets, no old settings or statuses', () => {
    const history = [
      queueCreated({ settings: { mode: 'parallel', concurrency: 9 }, requiredStatuses: ['ci'], state: 'draining' }),
      prSubmitted(1),
      targetsSet(1, 'd1'),
      prCancelled(1),
      queueDeleted(),
    ];
    const recreated = given(history).when(create()).events();
    const s = foldQueue([...history, ...recreated]);
    expect(s.exists).toBe(true);
    expect(s.entries.size).toBe(0);
    expect(s.targets.size).toBe(0);
    expect(s.nextSeq).toBe(0);
    expect(s.settings).toStrictEqual(DEFAULT_SETTINGS);
    expect(s.requiredStatuses).toStrictEqual([]);
    expect(s.runState).toBe('running');
  });

  it('when a PR of the old queue is submitted to the re-created one, then it gets a new entry id', () => {
    const history = [queueCreated(), prSubmitted(1), prCancelled(1), queueDeleted(), queueCreated()];
    const [event] = decide(foldQueue(history), submit(1), testContext());
    expect(event).toMatchObject({ type: 'PrSubmitted', data: { entryId: 'id-1', state: 'pending' } });
  });

  describe('settings are validated as updateQueue validates them', () => {
    it.each<[string, QueueSettingsInput]>([
      ['concurrency 0', { concurrency: 0 }],
      ['concurrency above 2^32-1', { concurrency: MAX_UINT32 + 1 }],
      ['a fractional batchingMinSize', { batchingMinSize: 1.5 }],
      ['a negative pendingFailureDepth', { pendingFailureDepth: -1 }],
      ['testingTimeoutMinutes NaN', { testingTimeoutMinutes: Number.NaN }],
    ])('when created with %s, then INVALID_ARGUMENT', (_label, settings) => {
      given().when(create({ settings })).thenThrows('INVALID_ARGUMENT');
    });

    it('when created with pendingFailureDepth 0 and concurrency 2^32-1, then both are accepted', () => {
      const [event] = given()
        .when(create({ settings: { pendingFailureDepth: 0, concurrency: MAX_UINT32 } }))
        .events();
      expect(event).toMatchObject({ data: { settings: { pendingFailureDepth: 0, concurrency: MAX_UINT32 } } });
    });

    it('when a required status name is blank, then INVALID_ARGUMENT', () => {
      given()
        .when(create({ requiredStatuses: ['ci', '  '] }))
        .thenThrows('INVALID_ARGUMENT');
    });
  });
});
