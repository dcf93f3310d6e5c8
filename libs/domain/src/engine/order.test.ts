import type { QueueEvent } from '../events';
import { planOrderIndexOf } from '../entry-order';
import { at, prSubmitted } from '../testing/fixtures';
import { runStarted } from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { queueWith } from './testing/plan-helpers';
import { planOrder } from './order';

const high = (n: number, when = at(50)): QueueEvent => prSubmitted(n, { priorityValue: 10, priorityName: 'high', at: when });
const interrupted = (prNumber: number, when = at(51)): QueueEvent => ({
  type: 'TestsRestarted',
  data: { prNumber, reason: 'SKIP_THE_LINE_INTERRUPTED', at: when },
});
const cancelled = (prNumber: number, when = at(52)): QueueEvent =>
  ({
    type: 'PrCancelled',
    data: { prNumber, reason: 'API_REQUESTED', at: when },
  }) as QueueEvent;

describe('planOrder over a folded queue', () => {
  it('when PRs start, arrive with a higher priority, are pre-empted and cancelled, then the order is started, then waiting by priority', () => {
    const history = [
      ...queueWith({ concurrency: 2 }, [1, 2, 3, 4]),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      high(5),
      high(6, at(53)),
      interrupted(2),
      cancelled(3),
    ];
    const { state } = givenQueue(history);
    // 1 keeps its flight place; 2 gave its place up and waits by its priority and submission again.
    expect(planOrder(state).map((e) => e.prNumber)).toEqual([1, 5, 6, 2, 4]);
  });

  it('when many PRs of mixed priorities are folded, then the kept order equals sorting the entries afresh', () => {
    const events: QueueEvent[] = queueWith({ concurrency: 3 }, []);
    for (let n = 1; n <= 200; n++) events.push(n % 7 === 0 ? high(n, at(n)) : prSubmitted(n, { at: at(n) }));
    for (let n = 3; n <= 200; n += 11) events.push(cancelled(n, at(300)));
    const { state } = givenQueue(events);
    const afresh = planOrderIndexOf(new Map(state.entries));
    expect(planOrder(state).map((e) => e.prNumber)).toEqual([...afresh.started, ...afresh.waiting].map((e) => e.prNumber));
    expect(
      planOrder(state)
        .slice(0, 3)
        .map((e) => e.prNumber),
    ).toEqual([7, 21, 28]); // 14 was cancelled
  });
});
