import {
  byQueueOrder as writeOrder,
  activeEntries,
  knownEntries,
  decide,
  DomainError,
  evolve,
  initialQueueState,
  parseQueueId,
  type QueueCommand,
  type QueueState,
} from '@railyard/domain';
import fc from 'fast-check';
import { testQueueId } from '../../testing/fixtures';
import { RecordedEventFactory } from '../../testing/recorded';
import { foldBatch, prKeyOf, type DocSet } from './batch';
import { isActive, byQueueOrder } from './order';
import { prViewOf } from './pr-view';

const Q = testQueueId();
const { repo, branch } = parseQueueId(Q);
const prNumber = fc.integer({ min: 1, max: 4 });

const command: fc.Arbitrary<QueueCommand> = fc.oneof(
  fc.record({ type: fc.constant('CreateQueue' as const), queueId: fc.constant(Q), repo: fc.constant(repo), branch: fc.constant(branch) }),
  fc.record({
    type: fc.constant('UpdateQueue' as const),
    settings: fc.option(
      fc.record(
        { mode: fc.constantFrom('single' as const, 'parallel' as const), concurrency: fc.integer({ min: 1, max: 3 }) },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    ),
    state: fc.option(fc.constantFrom('running' as const, 'paused' as const, 'draining' as const), { nil: undefined }),
    requiredStatuses: fc.option(fc.subarray(['ci', 'lint'], { minLength: 1 }), { nil: undefined }),
  }),
  fc.constant<QueueCommand>({ type: 'DeleteQueue' }),
  fc.record({
    type: fc.constant('SubmitPullRequest' as const),
    pr: fc.record({
      number: prNumber,
      title: fc.constant('t'),
      author: fc.constant('a'),
      headSha: fc.constantFrom('s1', 's2'),
      baseBranch: fc.constantFrom('main', 'other'),
      state: fc.constant('open' as const),
      mergeability: fc.constantFrom('mergeable' as const, 'in_progress' as const),
    }),
    priority: fc.option(fc.constantFrom<number | 'urgent' | 'low'>(0, 10, 100, 50, 'urgent', 'low'), { nil: undefined }),
    noBatch: fc.option(fc.boolean(), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('CancelPullRequest' as const), prNumber }),
  fc.record({ type: fc.constant('RestartTestsOnPullRequest' as const), prNumber }),
  fc.record({
    type: fc.constant('SetImpactedTargets' as const),
    prNumber,
    headSha: fc.constantFrom('s1', 's2'),
    targets: fc.record({ digest: fc.constantFrom('d1', 'd2'), count: fc.constant(1), all: fc.boolean() }),
  }),
);

/** Runs the commands through the write side and the events, in batches, through the read side. */
const run = (commands: QueueCommand[], batchSize: number): { state: QueueState; docs: DocSet } => {
  const factory = new RecordedEventFactory();
  let state = initialQueueState();
  let ids = 0;
  const docs: DocSet = { queues: new Map(), prs: new Map() };
  let pending: ReturnType<RecordedEventFactory['record']> = [];
  commands.forEach((c, i) => {
    const now = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    try {
      const events = decide(state, c, { now, newId: () => `e${++ids}` });
      for (const e of events) state = evolve(state, e);
      pending.push(...factory.record(Q, ...events));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
    }
    if (pending.length >= batchSize) {
      foldBatch(docs, pending);
      pending = [];
    }
  });
  foldBatch(docs, pending);
  return { state, docs };
};

describe('read side against write side', () => {
  it('when any sequence of commands is decided and folded, then every PR view and the active order agree with the write-side state', () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 7 }), (commands, batchSize) => {
        const { state, docs } = run(commands, batchSize);
        const queue = docs.queues.get(Q) ?? null;
        expect(!!queue?.view).toBe(state.exists);
        if (!state.exists || !queue?.view) return;

        expect(queue.view).toMatchObject({ state: state.runState, settings: state.settings, requiredStatuses: state.requiredStatuses });
        expect(queue.view.pendingMode).toBe(state.pendingMode);
        for (const e of knownEntries(state)) {
          const doc = docs.prs.get(prKeyOf(Q, e.prNumber)) ?? null;
          expect(doc?.generation).toBe(queue.generation);
          // One view function for both sides: the read side's document is exactly the write side's entry seen through it.
          expect(doc?.view).toStrictEqual(prViewOf(Q, e));
        }
        const readActive = [...docs.prs.values()]
          .filter((d) => isActive(queue, d))
          .map((d) => d!.view)
          .sort(byQueueOrder);
        expect(readActive.map((v) => v.prNumber)).toEqual(
          activeEntries(state)
            .sort(writeOrder)
            .map((e) => e.prNumber),
        );
      }),
      { numRuns: 300 },
    );
  });
});
