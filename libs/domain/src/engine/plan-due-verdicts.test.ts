import type { QueueEvent } from '../events';
import { at, prCancelled } from '../testing/fixtures';
import { facts, runPassed, runStarted } from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { queueWith, startOf } from './testing/plan-helpers';

/**
 * Starts wait for a verdict due within moments (D340, engine/run-times.ts): in a steady CI the runs
 * of a round report together, so a run started between their verdicts stacks PRs that may fail a
 * moment later. PRs 1–3 set the queue's run times (each run passed after `durations` minutes, then
 * the PR was withdrawn, so nothing merges); PRs 4 and 5 test from 10:00, 5 stacked on 4, and one
 * slot of three is free for PR 6.
 */
const T0 = at(60);
const after = (ms: number, from = T0): string => new Date(Date.parse(from) + ms).toISOString();
const MIN = 60_000;

const queueTimed = (durations: number[] = [10, 10, 10]): QueueEvent[] => [
  ...queueWith({ concurrency: 3 }, [1, 2, 3, 4, 5, 6]),
  ...durations.flatMap((d, i) => {
    const started = at(i * 15);
    return [
      ...runStarted(`t${i + 1}`, i + 1, [], { when: started }),
      ...runPassed(`t${i + 1}`, i + 1, after(d * MIN, started)),
      prCancelled(i + 1, after(d * MIN, started)),
    ];
  }),
  ...[1, 2, 3].slice(durations.length).map((n) => prCancelled(n, at(50))),
  ...runStarted('r4', 4, [], { when: T0 }),
  ...runStarted('r5', 5, [4], { when: T0 }),
];

describe('starts wait for verdicts due within moments', () => {
  it('when the runs a start would stack are due to report within moments, then it waits for them', () => {
    expect(givenQueue(queueTimed()).planned(facts(), after(10 * MIN - 10_000))).toEqual([]);
  });

  it('when they are not due yet, then it starts at once', () => {
    expect(givenQueue(queueTimed()).planned(facts(), after(9 * MIN))).toEqual([startOf(6, [4, 5])]);
  });

  it('when they are overdue past the window, then it starts without their verdict', () => {
    expect(givenQueue(queueTimed()).planned(facts(), after(10 * MIN + 30_000))).toEqual([startOf(6, [4, 5])]);
  });

  it('when run times vary, then nothing is ever due and it starts at once', () => {
    expect(givenQueue(queueTimed([5, 10, 15])).planned(facts(), after(10 * MIN - 10_000))).toEqual([startOf(6, [4, 5])]);
  });

  it('when fewer than three runs set the times, then it starts at once', () => {
    expect(givenQueue(queueTimed([10, 10])).planned(facts(), after(10 * MIN - 10_000))).toEqual([startOf(6, [4, 5])]);
  });
});
