import { DEFAULT_SETTINGS, type QueueEvent } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import * as readModelTesting from '../../testing';
import { testRunTesting } from '../../testing';
import { explainView, explainViews } from '../explain';
import type { PrView, QueueView, ReadModelStore } from '../port';
import { getQueueResponse, prResponse } from '../views';
import { freshStoreEach } from '../../testing/fresh-store';

const {
  NOT_READY,
  READY,
  RecordedEventFactory,
  prCancelled,
  prPriorityChanged,
  prReadinessChanged,
  prSubmitted,
  queueCreated,
  queueDeleted,
  queueStateChanged,
  testQueueId,
} = readModelTesting;

const Q = testQueueId('main');
const OTHER = testQueueId('release/1.x@v2');
const T = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

/** The realistic history the suite starts from, as one list of recorded events in commit order. */
const history = (): { factory: InstanceType<typeof RecordedEventFactory>; events: RecordedEvent[] } => {
  const factory = new RecordedEventFactory(100n, 3n);
  const events = [
    ...factory.record(Q, queueCreated(Q, T(0))),
    ...factory.record(OTHER, queueCreated(OTHER, T(0), 'paused')),
    ...factory.record(Q, {
      type: 'QueueConfigUpdated',
      data: { changes: { concurrency: 2, batch: true }, requiredStatuses: ['ci/build', 'lint'], at: T(1) },
    }),
    ...factory.record(Q, prSubmitted(1, T(2), { defaulted: true })),
    ...factory.record(Q, prSubmitted(2, T(3), { priorityValue: 10, priorityName: 'high' })),
    ...factory.record(OTHER, prSubmitted(1, T(3), { sha: 'other-sha' })),
    ...factory.record(Q, prSubmitted(3, T(4), { priorityValue: 200, priorityName: 'low', readiness: NOT_READY })),
    // The v1 re-submit of an active PR: priority changes in place.
    ...factory.record(Q, prPriorityChanged(1, T(5), 0, 'urgent')),
    ...factory.record(Q, prReadinessChanged(3, T(6), READY)),
    ...factory.record(Q, prCancelled(2, T(7))),
    ...factory.record(Q, queueStateChanged('running', 'paused', T(8))),
    ...factory.record(Q, queueStateChanged('paused', 'running', T(9))),
  ];
  return { factory, events };
};

interface Snapshot {
  checkpoint: bigint | null;
  queues: (QueueView | null)[];
  prs: (PrView | null)[];
  active: number[][];
}

const snapshot = async (store: ReadModelStore): Promise<Snapshot> => ({
  checkpoint: await store.checkpoint(),
  queues: [await store.getQueue(Q), await store.getQueue(OTHER)],
  prs: await Promise.all([1, 2, 3, 4, 5].flatMap((n) => [store.getPr(Q, n), store.getPr(OTHER, n)])),
  active: [(await store.listActivePrs(Q)).map((p) => p.prNumber), (await store.listActivePrs(OTHER)).map((p) => p.prNumber)],
});

const inBatches = async (store: ReadModelStore, events: RecordedEvent[], size: number): Promise<void> => {
  for (let i = 0; i < events.length; i += size) await store.apply(events.slice(i, i + size));
};

const lastPosition = (events: RecordedEvent[]): bigint => {
  const last = events[events.length - 1];
  if (!last) throw new Error('no events');
  return last.position;
};

/** PRs tested, a run reporting after its PR left the queue, and the queue paused: what explanations read. */
const withRuns = (): RecordedEvent[] => {
  const { factory, events } = history();
  const { testRunStarted, statusReported, runFailed } = testRunTesting;
  const tested = (n: number, testRunId: string, at: string): QueueEvent =>
    ({ type: 'PrTestingStarted', data: { prNumber: n, testRunId, at } }) as QueueEvent;
  return [
    ...events,
    ...factory.record(Q, prSubmitted(4, T(10))),
    ...factory.record(Q, testRunStarted('r1', T(11), { prNumbers: [1, 3] })),
    ...factory.record(Q, tested(1, 'r1', T(11))),
    ...factory.record(Q, tested(3, 'r1', T(11))),
    ...factory.record(Q, statusReported('r1', T(12), 'build', 'pending')),
    ...factory.record(Q, prCancelled(3, T(13))),
    ...factory.record(Q, statusReported('r1', T(14), 'build', 'failure', 'https://ci.example/r1')),
    ...factory.record(Q, runFailed('r1', T(15))),
    ...factory.record(Q, queueStateChanged('running', 'paused', T(16))),
  ];
};

/** What the API built from the views before the answers were stored: the stored ones must be these bytes. */
const answerFromViews = async (store: ReadModelStore, queueId: string): Promise<string | null> => {
  const view = await store.getQueue(queueId);
  if (!view) return null;
  const prs = await store.listActivePrs(queueId);
  return JSON.stringify(getQueueResponse(view, prs, await explainViews(store, view, prs)));
};

const prAnswerFromViews = async (store: ReadModelStore, queueId: string, n: number): Promise<string | null> => {
  const view = await store.getPr(queueId, n);
  return view ? JSON.stringify(prResponse(view, await explainView(store, view))) : null;
};

/**
 * What every ReadModelStore adapter must do. `make` returns a store on an isolated namespace; the
 * suite resets it before each test and closes it after.
 */
export const readModelContract = (name: string, make: () => Promise<ReadModelStore> | ReadModelStore): void => {
  describe(`ReadModelStore contract: ${name}`, () => {
    let store: ReadModelStore;

    freshStoreEach(make, (s) => (store = s));

    describe('given nothing applied', () => {
      it('when asked, then there is no checkpoint, no queue and no PR', async () => {
        expect(await store.checkpoint()).toBeNull();
        expect(await store.getQueue(Q)).toBeNull();
        expect(await store.getPr(Q, 1)).toBeNull();
        expect(await store.listActivePrs(Q)).toEqual([]);
      });

      it('when an empty batch is applied, then nothing changes', async () => {
        await store.apply([]);
        expect(await store.checkpoint()).toBeNull();
      });
    });

    describe('host problems the engine reports', () => {
      const reported = (at: string): QueueEvent =>
        ({
          type: 'QueueHostProblemReported',
          data: { code: 'REPOSITORY_NOT_FOUND', detail: 'no repository acme/rails', at },
        }) as QueueEvent;
      const cleared = (at: string): QueueEvent => ({ type: 'QueueHostProblemCleared', data: { at } }) as QueueEvent;

      it('when a problem is reported, then getQueue shows it and listHostProblems lists the queue until it is cleared', async () => {
        const factory = new RecordedEventFactory();
        await store.apply([...factory.record(Q, queueCreated(Q, T(0))), ...factory.record(OTHER, queueCreated(OTHER, T(0)))]);
        expect(await store.listHostProblems()).toEqual([]);
        await store.apply(factory.record(Q, reported(T(1))));
        const problem = { code: 'REPOSITORY_NOT_FOUND', detail: 'no repository acme/rails', since: T(1) };
        expect((await store.getQueue(Q))?.hostProblem).toEqual(problem);
        expect((await store.listHostProblems()).map((q) => [q.queueId, q.hostProblem])).toEqual([[Q, problem]]);
        await store.apply(factory.record(Q, cleared(T(2))));
        expect((await store.getQueue(Q))?.hostProblem).toBeUndefined();
        expect(await store.listHostProblems()).toEqual([]);
      });

      it('when a queue with a problem is deleted, then it is no longer listed', async () => {
        const factory = new RecordedEventFactory();
        await store.apply(factory.record(Q, queueCreated(Q, T(0)), reported(T(1))));
        await store.apply(factory.record(Q, queueDeleted(T(2))));
        expect(await store.listHostProblems()).toEqual([]);
      });
    });

    describe('given the realistic history', () => {
      let events: RecordedEvent[];
      let factory: InstanceType<typeof RecordedEventFactory>;

      beforeEach(async () => {
        ({ events, factory } = history());
        await store.apply(events);
      });

      it('when the queue is read, then every field reflects creation, config update and state changes', async () => {
        expect(await store.getQueue(Q)).toEqual({
          queueId: Q,
          repo: { host: 'github.com', owner: 'acme', name: 'rails' },
          branch: 'main',
          state: 'running',
          settings: { ...DEFAULT_SETTINGS, concurrency: 2, batch: true },
          requiredStatuses: ['ci/build', 'lint'],
          createdAt: T(0),
          updatedAt: T(9),
        });
        expect(await store.getQueue(OTHER)).toMatchObject({ branch: 'release/1.x@v2', state: 'paused', requiredStatuses: ['ci/build'] });
      });

      it('when the re-prioritised PR is read, then every field is as submitted except its priority', async () => {
        expect(await store.getPr(Q, 1)).toEqual({
          queueId: Q,
          id: 'entry-1',
          prNumber: 1,
          prTitle: 'PR 1',
          prSha: 'sha-1',
          prBaseBranch: 'main',
          prAuthor: 'dev-1',
          state: 'pending',
          stateChangedAt: T(2),
          stateReason: { code: 'API_REQUESTED' },
          priorityValue: 0,
          priorityName: 'urgent',
          skipTheLine: true,
          forceEnqueued: false,
          isCurrentlySubmittedToQueue: true,
          noBatch: false,
          readiness: READY,
          submittedAt: T(2),
          seq: 0,
        });
      });

      it('when the cancelled PR is read, then it is terminal and still readable', async () => {
        expect(await store.getPr(Q, 2)).toEqual({
          queueId: Q,
          id: 'entry-2',
          prNumber: 2,
          prTitle: 'PR 2',
          prSha: 'sha-2',
          prBaseBranch: 'main',
          prAuthor: 'dev-2',
          state: 'cancelled',
          stateChangedAt: T(7),
          stateReason: { code: 'API_REQUESTED' },
          priorityValue: 10,
          priorityName: 'high',
          skipTheLine: false,
          forceEnqueued: false,
          isCurrentlySubmittedToQueue: false,
          noBatch: false,
          readiness: READY,
          submittedAt: T(3),
          seq: 1,
        });
      });

      it('when the PR that became ready is read, then its readiness and state moved at the readiness change', async () => {
        expect(await store.getPr(Q, 3)).toMatchObject({
          state: 'pending',
          stateChangedAt: T(6),
          readiness: READY,
          priorityValue: 200,
          priorityName: 'low',
          seq: 2,
        });
      });

      it('when PRs of two queues share a number, then each queue sees its own', async () => {
        expect(await store.getPr(OTHER, 1)).toMatchObject({ queueId: OTHER, prSha: 'other-sha', seq: 0 });
        expect(await store.getPr(OTHER, 2)).toBeNull();
        expect((await store.listActivePrs(OTHER)).map((p) => p.prNumber)).toEqual([1]);
      });

      it('when active PRs are listed, then terminal ones are left out and the rest are in queue order', async () => {
        expect((await store.listActivePrs(Q)).map((p) => [p.prNumber, p.priorityValue, p.seq])).toEqual([
          [1, 0, 0],
          [3, 200, 2],
        ]);
      });

      it('when the checkpoint is read, then it is the last position applied', async () => {
        expect(await store.checkpoint()).toBe(lastPosition(events));
      });

      it('when the whole batch is applied again, then nothing changes', async () => {
        const before = await snapshot(store);
        await store.apply(events);
        expect(await snapshot(store)).toEqual(before);
      });

      it('when a batch starts below the checkpoint, then only its new part is applied', async () => {
        const more = factory.record(Q, prSubmitted(4, T(10), { priorityValue: 0, priorityName: 'urgent' }), prSubmitted(5, T(11)));
        // Resubmitting PR 3 would give it a new sequence number, so its absence shows the old part was skipped.
        const overlap = [...events.slice(-6), ...more];
        await store.apply(overlap);
        expect(await store.checkpoint()).toBe(lastPosition(more));
        expect((await store.listActivePrs(Q)).map((p) => [p.prNumber, p.seq])).toEqual([
          [1, 0],
          [4, 3],
          [5, 4],
          [3, 2],
        ]);
        expect(await store.getPr(Q, 2)).toMatchObject({ state: 'cancelled', stateChangedAt: T(7) });
      });

      it('when the queue is emptied and deleted, then neither it nor its PRs are found', async () => {
        await store.apply(factory.record(Q, prCancelled(1, T(10)), prCancelled(3, T(11)), queueDeleted(T(12))));
        expect(await store.getQueue(Q)).toBeNull();
        expect(await store.getPr(Q, 1)).toBeNull();
        expect(await store.getPr(Q, 2)).toBeNull();
        expect(await store.listActivePrs(Q)).toEqual([]);
        expect(await store.getQueue(OTHER)).not.toBeNull();
      });

      it('when a deleted queue is created again, then it starts fresh and old PRs stay hidden', async () => {
        await store.apply(factory.record(Q, prCancelled(1, T(10)), prCancelled(3, T(11)), queueDeleted(T(12)), queueCreated(Q, T(13))));
        expect(await store.getQueue(Q)).toEqual({
          queueId: Q,
          repo: { host: 'github.com', owner: 'acme', name: 'rails' },
          branch: 'main',
          state: 'running',
          settings: DEFAULT_SETTINGS,
          requiredStatuses: ['ci/build'],
          createdAt: T(13),
          updatedAt: T(13),
        });
        expect(await store.getPr(Q, 1)).toBeNull();
        expect(await store.getPr(Q, 2)).toBeNull();
        expect(await store.listActivePrs(Q)).toEqual([]);

        await store.apply(factory.record(Q, prSubmitted(2, T(14))));
        expect(await store.getPr(Q, 2)).toMatchObject({ state: 'pending', seq: 0, submittedAt: T(14) });
        expect(await store.getPr(Q, 1)).toBeNull();
        expect((await store.listActivePrs(Q)).map((p) => p.prNumber)).toEqual([2]);
      });

      it('when everything happens in one batch, then the result equals applying it event by event', async () => {
        const tail = factory.record(
          Q,
          prCancelled(1, T(10)),
          prCancelled(3, T(11)),
          queueDeleted(T(12)),
          queueCreated(Q, T(13)),
          prSubmitted(3, T(14)),
        );
        await store.apply(tail);
        const batched = await snapshot(store);

        await store.reset();
        await inBatches(store, [...events, ...tail], 1);
        expect(await snapshot(store)).toEqual(batched);
      });

      it('when the models are reset and rebuilt, then they equal the models before', async () => {
        const before = await snapshot(store);
        await store.reset();
        expect(await store.checkpoint()).toBeNull();
        expect(await store.getQueue(Q)).toBeNull();
        expect(await store.getPr(Q, 1)).toBeNull();
        expect(await store.listActivePrs(Q)).toEqual([]);

        await inBatches(store, events, 4);
        expect(await snapshot(store)).toEqual(before);
      });
    });

    describe('every PR, paged (listPullRequests)', () => {
      /** Walks the pages of `take` from the start, as a client following nextCursor does. */
      const walk = async (
        take: number,
        filter: { state?: PrView['state']; concludedSince?: string } = {},
        between?: () => Promise<void>,
      ) => {
        const seen: number[] = [];
        let after: number | undefined;
        for (let pages = 0; pages < 50; pages++) {
          const page = await store.listPrs(Q, { take, ...filter, ...(after !== undefined ? { afterPrNumber: after } : {}) });
          seen.push(...page.prs.map((p) => p.prNumber));
          if (!page.more) return seen;
          after = page.prs[page.prs.length - 1]?.prNumber;
          await between?.();
        }
        throw new Error('the pages never ended');
      };

      it('when the history is listed a page at a time, then every PR of the queue comes once, in number order, active or not', async () => {
        await store.apply(history().events);
        expect(await walk(1)).toEqual([1, 2, 3]);
        expect(await walk(2)).toEqual([1, 2, 3]);
        expect(await store.listPrs(Q, { take: 3 })).toMatchObject({ more: false });
        expect(await store.listPrs(OTHER, { take: 10 })).toMatchObject({ prs: [{ prNumber: 1, prSha: 'other-sha' }], more: false });
      });

      it('when PRs change state and new ones come between pages, then the walk neither repeats nor skips one', async () => {
        const { factory, events } = history();
        await store.apply(events);
        let next = 10;
        const seen = await walk(1, {}, async () => {
          // Three pages in, the last PRs are added: they come at the end, once each.
          if (next > 12) return;
          await store.apply([...factory.record(Q, prCancelled(1, T(20))), ...factory.record(Q, prSubmitted(next++, T(21)))]);
        });
        expect(seen).toEqual([1, 2, 3, 10, 11, 12]);
      });

      it('when a state or a conclusion time is asked, then only those PRs are listed', async () => {
        const { factory, events } = history();
        await store.apply([...events, ...factory.record(Q, prCancelled(3, T(30)))]);
        expect(await walk(1, { state: 'cancelled' })).toEqual([2, 3]);
        expect(await walk(5, { state: 'pending' })).toEqual([1]);
        expect(await walk(5, { concludedSince: T(8) })).toEqual([3]);
        expect(await walk(5, { concludedSince: T(7) })).toEqual([2, 3]);
      });

      it('when the queue is deleted and created again, then the PRs of its earlier life are not listed', async () => {
        const { factory, events } = history();
        await store.apply([
          ...events,
          ...factory.record(Q, prCancelled(1, T(20))),
          ...factory.record(Q, prCancelled(3, T(20))),
          ...factory.record(Q, queueDeleted(T(21))),
        ]);
        expect((await store.listPrs(Q, { take: 10 })).prs).toEqual([]);
        await store.apply([...factory.record(Q, queueCreated(Q, T(22))), ...factory.record(Q, prSubmitted(5, T(23)))]);
        expect((await store.listPrs(Q, { take: 10 })).prs.map((p) => p.prNumber)).toEqual([5]);
      });
    });

    describe('answers ready to send', () => {
      it.each([1, 3, 100])(
        'when the history with runs is applied in batches of %i, then the getQueue answer and every PR explanation equal the ones built from the views',
        async (size) => {
          const events = withRuns();
          for (let i = 0; i < events.length; i += size) {
            await store.apply(events.slice(i, i + size));
            // After every batch, not only at the end: a stale stored answer would show in between.
            for (const queueId of [Q, OTHER]) {
              expect(await store.getQueueAnswer(queueId)).toEqual(await answerFromViews(store, queueId));
              for (const n of [1, 2, 3, 4, 5])
                expect(await store.getPrAnswer(queueId, n)).toEqual(await prAnswerFromViews(store, queueId, n));
            }
          }
          const answer = JSON.parse((await store.getQueueAnswer(Q)) ?? 'null') as {
            state: string;
            enqueuedPullRequests: Record<string, unknown>[];
          };
          expect(answer.state).toBe('paused');
          expect(answer.enqueuedPullRequests.map((p) => p.prNumber)).toEqual([1, 4]);
          // Trunk's names of an enqueued PR, and the earlier names Railyard's own clients read.
          const first = answer.enqueuedPullRequests[0] as Record<string, unknown>;
          for (const field of ['id', 'prNumber', 'prTitle', 'prSha', 'prBaseBranch', 'prAuthor', 'priorityValue', 'skipTheLine', 'noBatch'])
            expect(first).toHaveProperty(field);
          expect([first.number, first.title, first.sha, first.priority]).toEqual([
            first.prNumber,
            first.prTitle,
            first.prSha,
            first.priorityValue,
          ]);
          const pr1 = JSON.parse((await store.getPrAnswer(Q, 1)) ?? 'null') as { lastTestRun?: { failedChecks: { name: string }[] } };
          expect(pr1.lastTestRun?.failedChecks.map((c) => c.name)).toEqual(['build']);
        },
      );

      it('when the queue is deleted and created again, then its answer is gone and then starts empty', async () => {
        const { factory, events } = history();
        await store.apply(events);
        await store.apply([
          ...factory.record(Q, prCancelled(1, T(20))),
          ...factory.record(Q, prCancelled(3, T(20))),
          ...factory.record(Q, queueDeleted(T(21))),
        ]);
        expect(await store.getQueueAnswer(Q)).toBeNull();
        expect(await store.getPrAnswer(Q, 1)).toBeNull();
        await store.apply(factory.record(Q, queueCreated(Q, T(22))));
        expect(await store.getQueueAnswer(Q)).toEqual(await answerFromViews(store, Q));
        expect(JSON.parse((await store.getQueueAnswer(Q)) ?? 'null')).toMatchObject({ enqueuedPullRequests: [] });
      });
    });

    describe('queue order', () => {
      it('when priorities change over time, then the list follows priority first and submission order within a level', async () => {
        const factory = new RecordedEventFactory();
        const submissions: QueueEvent[] = [
          prSubmitted(10, T(1), { priorityValue: 100, priorityName: 'medium' }),
          prSubmitted(11, T(2), { priorityValue: 10, priorityName: 'high' }),
          prSubmitted(12, T(3), { priorityValue: 100, priorityName: 'medium' }),
          prSubmitted(13, T(4), { priorityValue: 50, priorityName: 'medium' }),
          prSubmitted(14, T(5), { priorityValue: 10, priorityName: 'high' }),
        ];
        await store.apply(factory.record(Q, queueCreated(Q, T(0)), ...submissions));
        expect((await store.listActivePrs(Q)).map((p) => p.prNumber)).toEqual([11, 14, 13, 10, 12]);

        await store.apply(
          factory.record(Q, prPriorityChanged(12, T(6), 0, 'urgent'), prPriorityChanged(11, T(7), 200, 'low'), prCancelled(13, T(8))),
        );
        expect((await store.listActivePrs(Q)).map((p) => p.prNumber)).toEqual([12, 14, 10, 11]);
      });

      it('when many PRs arrive in one large batch, then the order and the views match applying them in small batches', async () => {
        const factory = new RecordedEventFactory();
        const events = factory.record(Q, queueCreated(Q, T(0)));
        for (let n = 1; n <= 300; n++) {
          const priorityValue = [0, 10, 100, 200][n % 4] ?? 100;
          events.push(
            ...factory.record(Q, prSubmitted(n, T(1), { priorityValue, priorityName: priorityValue === 0 ? 'urgent' : 'medium' })),
          );
          if (n % 3 === 0) events.push(...factory.record(Q, prCancelled(n, T(2))));
          if (n % 5 === 0) events.push(...factory.record(Q, prPriorityChanged(n, T(3), 10, 'high')));
        }
        await store.apply(events);
        const once = await store.listActivePrs(Q);

        await store.reset();
        await inBatches(store, events, 7);
        const small = await store.listActivePrs(Q);
        expect(small).toEqual(once);
        expect(once).toHaveLength(200);
        const keys = once.map((p) => [p.priorityValue, p.seq]);
        expect(keys).toEqual([...keys].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0)));
      });
    });

    describe('waitFor', () => {
      it('when the checkpoint has already passed the position, then it answers true at once', async () => {
        const { events } = history();
        await store.apply(events);
        expect(await store.waitFor(lastPosition(events) - 1n, 0)).toBe(true);
        expect(await store.waitFor(lastPosition(events), 0)).toBe(true);
      });

      it('when the position is applied while waiting, then it answers true', async () => {
        const { events } = history();
        const waiting = store.waitFor(lastPosition(events), 5_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
        await store.apply(events);
        expect(await waiting).toBe(true);
      });

      it('when the position is never reached, then it answers false after the timeout', async () => {
        const { events } = history();
        await store.apply(events);
        expect(await store.waitFor(lastPosition(events) + 1n, 50)).toBe(false);
      });
    });
  });
};
