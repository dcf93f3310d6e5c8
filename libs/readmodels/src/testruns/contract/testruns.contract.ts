import type { RecordedEvent } from '@railyard/eventstore';
import type { ReadModelStore } from '../../queue/port';
import { prCancelled, prSubmitted, queueCreated, queueDeleted, testQueueId } from '../../testing/fixtures';
import { RecordedEventFactory } from '../../testing/recorded';
import { runCancelled, runFailed, runSucceeded, runTimedOut, statusReported, targetsSet, testRunStarted } from '../../testing/testruns';
import { freshStoreEach } from '../../testing/fresh-store';

const Q = testQueueId('main');
const OTHER = testQueueId('release');
const T = (minute: number): string => new Date(Date.UTC(2026, 3, 1, 12, minute)).toISOString();
const RUN = '11111111-1111-4111-8111-111111111111';
const LOG = (check: string) => `http://railyard.test/ci/logs/${RUN}/${check}`;

/** A queue where PRs 1 and 2 are ahead (dependents) and PR 3 is tested, with targets for 1 and 3. */
const history = (): RecordedEvent[] => {
  const f = new RecordedEventFactory(50n, 7n);
  return [
    ...f.record(Q, queueCreated(Q, T(0))),
    ...f.record(OTHER, queueCreated(OTHER, T(0))),
    ...f.record(Q, prSubmitted(1, T(1)), prSubmitted(2, T(1)), prSubmitted(3, T(2), { sha: 'head-3' })),
    ...f.record(
      Q,
      targetsSet(1, 'sha-1', T(2), 'd1', 3),
      targetsSet(3, 'old-head', T(2), 'stale', 9),
      targetsSet(3, 'head-3', T(3), 'd3', 1),
    ),
    ...f.record(
      Q,
      testRunStarted(RUN, T(4), { prNumbers: [3], dependentPrs: [1, 2], requiredStatuses: ['build', 'test'], testBranchSha: 'tip' }),
    ),
    ...f.record(Q, statusReported(RUN, T(5), 'build', 'pending', LOG('build')), statusReported(RUN, T(5), 'external', 'pending')),
    ...f.record(Q, statusReported(RUN, T(6), 'build', 'success', LOG('build')), statusReported(RUN, T(6), 'test', 'success')),
    ...f.record(Q, runSucceeded(RUN, T(7))),
  ];
};

const inBatches = async (store: ReadModelStore, events: RecordedEvent[], size: number): Promise<void> => {
  for (let i = 0; i < events.length; i += size) await store.apply(events.slice(i, i + size));
};

/** What every ReadModelStore adapter must do for test runs (getTestRun). */
export const testRunContract = (name: string, make: () => Promise<ReadModelStore> | ReadModelStore): void => {
  describe(`test-run read model: ${name}`, () => {
    let store: ReadModelStore;

    freshStoreEach(make, (s) => (store = s));

    it('when a run started, reported and succeeded, then its view holds every field, with its PRs as they were when it started', async () => {
      await store.apply(history());
      expect(await store.getTestRun(Q, RUN)).toEqual({
        queueId: Q,
        testRunId: RUN,
        testBranch: `railyard-merge/pr-3/${RUN}`,
        testBranchSha: 'tip',
        baseSha: 'base-sha',
        testedPrs: [{ prNumber: 3, title: 'PR 3', headSha: 'head-3', targets: { digest: 'd3', count: 1, all: false } }],
        dependentPrs: [
          { prNumber: 1, title: 'PR 1', headSha: 'sha-1', targets: { digest: 'd1', count: 3, all: false } },
          { prNumber: 2, title: 'PR 2', headSha: 'sha-2' },
        ],
        requiredStatuses: ['build', 'test'],
        requiredStatusesSource: 'trunk_config',
        bisection: false,
        status: 'succeeded',
        outcome: { kind: 'succeeded', at: T(7) },
        statuses: [
          { context: 'build', state: 'success', url: LOG('build'), at: T(6) },
          { context: 'external', state: 'pending', at: T(5) },
          { context: 'test', state: 'success', at: T(6) },
        ],
        createdAt: T(4),
        updatedAt: T(7),
      });
    });

    it('when the events come one by one, in pairs, or twice over, then the view is the same', async () => {
      const events = history();
      await store.apply(events);
      const whole = await store.getTestRun(Q, RUN);
      for (const size of [1, 2]) {
        await store.reset();
        await inBatches(store, events, size);
        expect(await store.getTestRun(Q, RUN)).toEqual(whole);
      }
      await store.apply(events);
      await store.apply(events.slice(3, 9));
      expect(await store.getTestRun(Q, RUN)).toEqual(whole);
    });

    it('when the run is unknown, or asked of another queue, then there is none', async () => {
      await store.apply(history());
      expect(await store.getTestRun(Q, 'no-such-run')).toBeNull();
      expect(await store.getTestRun(OTHER, RUN)).toBeNull();
    });

    it.each([
      [
        'failed',
        runFailed(RUN, T(9), ['test']),
        { status: 'failed', outcome: { kind: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['test'], at: T(9) } },
      ],
      ['timed out', runTimedOut(RUN, T(9)), { status: 'failed', outcome: { kind: 'timed_out', reason: 'TEST_RUN_TIMEOUT', at: T(9) } }],
      [
        'cancelled',
        runCancelled(RUN, T(9)),
        { status: 'cancelled', outcome: { kind: 'cancelled', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', at: T(9) } },
      ],
    ])('when the run %s, then its status and outcome say so, and a later ending changes nothing', async (_what, ending, expected) => {
      const f = new RecordedEventFactory();
      await store.apply(
        f.record(Q, queueCreated(Q, T(0)), prSubmitted(1, T(1)), testRunStarted(RUN, T(2)), ending, runSucceeded(RUN, T(10))),
      );
      expect(await store.getTestRun(Q, RUN)).toMatchObject({ ...expected, updatedAt: T(10) });
    });

    it('when a PR is pushed and re-submitted after its run started, then the run keeps the head, title and targets it tested', async () => {
      const f = new RecordedEventFactory();
      await store.apply(
        f.record(Q, queueCreated(Q, T(0)), prSubmitted(1, T(1), { sha: 'first' }), targetsSet(1, 'first', T(1), 'd-first')),
      );
      await store.apply(f.record(Q, testRunStarted(RUN, T(2))));
      await store.apply(
        f.record(
          Q,
          prCancelled(1, T(3), 'PR_PUSHED_TO'),
          prSubmitted(1, T(4), { sha: 'second' }),
          targetsSet(1, 'second', T(4), 'd-second'),
        ),
      );
      expect((await store.getTestRun(Q, RUN))?.testedPrs).toEqual([
        { prNumber: 1, title: 'PR 1', headSha: 'first', targets: { digest: 'd-first', count: 2, all: false } },
      ]);
    });

    it('when a PR is submitted and its run starts in one batch, then the run knows the PR', async () => {
      const f = new RecordedEventFactory();
      await store.apply(
        f.record(Q, queueCreated(Q, T(0)), prSubmitted(5, T(1), { sha: 'h5' }), testRunStarted(RUN, T(2), { prNumbers: [5] })),
      );
      expect((await store.getTestRun(Q, RUN))?.testedPrs).toEqual([{ prNumber: 5, title: 'PR 5', headSha: 'h5' }]);
    });

    it('when the queue is deleted, then its runs stay readable', async () => {
      const f = new RecordedEventFactory();
      await store.apply(
        f.record(
          Q,
          queueCreated(Q, T(0)),
          prSubmitted(1, T(1)),
          testRunStarted(RUN, T(2)),
          runCancelled(RUN, T(3)),
          prCancelled(1, T(3)),
          queueDeleted(T(4)),
        ),
      );
      expect(await store.getTestRun(Q, RUN)).toMatchObject({ status: 'cancelled' });
    });

    it('when the models are reset, then the runs are gone', async () => {
      await store.apply(history());
      await store.reset();
      expect(await store.getTestRun(Q, RUN)).toBeNull();
    });
  });
};
