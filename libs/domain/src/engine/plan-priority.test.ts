import type { QueueSettings } from '../config';
import type { QueueEvent } from '../events';
import { at, headShaOf, prSubmitted, queueCreated } from '../testing/fixtures';
import { facts, overlapsOf, runPassed, runStarted } from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { queueWith, rec, startOf } from './testing/plan-helpers';

const urgent = (n: number, when = at(50)): QueueEvent => prSubmitted(n, { priorityValue: 0, priorityName: 'urgent', at: when });
const high = (n: number, when = at(50)): QueueEvent => prSubmitted(n, { priorityValue: 10, priorityName: 'high', at: when });
const interrupted = (prNumber: number, when = at(51)): QueueEvent => ({
  type: 'TestsRestarted',
  data: { prNumber, reason: 'SKIP_THE_LINE_INTERRUPTED', at: when },
});
const cancelled = (testRunId: string, when = at(51)): QueueEvent => ({
  type: 'TestRunCancelled',
  data: { testRunId, reason: 'SKIP_THE_LINE_INTERRUPTED', at: when },
});
const skip = (prNumber: number) => rec({ type: 'RestartTests', prNumber, reason: 'SKIP_THE_LINE_INTERRUPTED' });

describe('plan: priorities (reference trunk §3)', () => {
  const busy = (settings: Partial<QueueSettings> = {}): QueueEvent[] => [
    ...queueWith({ concurrency: 2, ...settings }, [1, 2, 3]),
    ...runStarted('r1', 1),
    ...runStarted('r2', 2, [1]),
  ];

  it('when a high-priority PR arrives, then it starts before every PR not testing yet, but interrupts nothing', () => {
    expect(givenQueue([...busy({ concurrency: 3 }), high(4)]).planned(facts())).toEqual([startOf(4, [1, 2])]);
    expect(givenQueue([...busy(), high(4)]).planned(facts())).toEqual([]);
  });

  it('when an urgent PR arrives and a slot is free, then it simply starts, stacked on the runs in flight', () => {
    expect(givenQueue([...busy({ concurrency: 3 }), urgent(4)]).planned(facts())).toEqual([startOf(4, [1, 2])]);
  });

  it('when an urgent PR arrives and every slot is taken, then the lowest run in flight is interrupted to make room', () => {
    expect(givenQueue([...busy(), urgent(4)]).planned(facts())).toEqual([skip(2)]);
  });

  it('when the room is made, then the urgent PR starts at once and the interrupted one queues again behind it', () => {
    const history = [...busy(), urgent(4), cancelled('r2'), interrupted(2)];
    expect(givenQueue(history).planned(facts())).toEqual([startOf(4, [1])]);
    const next = [
      ...history,
      ...runStarted('r4', 4, [1], { when: at(52) }),
      { type: 'QueueConfigUpdated', data: { changes: { concurrency: 3 }, at: at(53) } } as QueueEvent,
    ];
    expect(givenQueue(next).planned(facts())).toEqual([startOf(2, [1, 4])]);
  });

  it('when the run to interrupt has PRs stacked on it, then they are interrupted too', () => {
    const history = [...busy(), ...runStarted('r3', 3, [1, 2]), ...runPassed('r3', 3), urgent(4)];
    expect(givenQueue(history).planned(facts())).toEqual([skip(2), skip(3)]);
  });

  it('when only urgent PRs are in flight, then a new urgent PR waits its turn', () => {
    const history = [queueCreated(), urgent(1, at(1)), ...runStarted('r1', 1), urgent(2, at(50))];
    expect(givenQueue(history).planned(facts())).toEqual([]);
  });

  it('when the queue is paused, then an urgent PR interrupts nothing', () => {
    const history = [
      ...busy(),
      urgent(4),
      { type: 'QueueStateChanged', data: { from: 'running', to: 'paused', at: at(50) } } as QueueEvent,
    ];
    expect(givenQueue(history).planned(facts())).toEqual([]);
  });

  it('when the queue is in parallel mode, then the urgent PR interrupts the lowest run and its dependents only', () => {
    const lists = { fe: ['web'], be: ['api'] };
    const ref = (d: 'fe' | 'be') => ({ digest: d, count: 1, all: false });
    const history: QueueEvent[] = [
      queueCreated({ settings: { mode: 'parallel', concurrency: 3 } }),
      ...(
        [
          [1, 'fe'],
          [2, 'be'],
          [3, 'fe'],
          [4, 'be'],
        ] as const
      ).flatMap(([n, d]): QueueEvent[] => [
        { type: 'ImpactedTargetsSet', data: { prNumber: n, headSha: headShaOf(n), ...ref(d), at: at(0) } },
        prSubmitted(n),
      ]),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2),
      ...runStarted('r3', 3, [1]),
      { type: 'ImpactedTargetsSet', data: { prNumber: 9, headSha: headShaOf(9), ...ref('be'), at: at(49) } },
      urgent(9),
    ];
    expect(givenQueue(history).planned(facts({ overlaps: overlapsOf(lists) }))).toEqual([skip(3)]);
  });
});
