import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { QueueEvent } from './events';
import { foldQueue, type QueueState } from './state';
import { QUEUE_STATE_SCHEMA, queueStateBody, queueStateOf } from './state-snapshot';
import { batchFailed, batchStarted, merged, prOneReRun, runFailed, runPassed, runStarted } from './engine/testing/engine-fixtures';
import { prCancelled, prSubmitted, queueCreated, targetsSet } from './testing/fixtures';

const HIGH = { priorityValue: 1, priorityName: 'high' } as const;

/** A queue's life with every kind of thing the state keeps: a flake re-run, a failed successor, merges, a failed batch, waiting and cancelled PRs. */
const history: QueueEvent[] = [
  queueCreated(),
  ...[1, 2, 3, 4, 5, 6, 7].map((n) => prSubmitted(n, n % 3 === 0 ? HIGH : {})),
  targetsSet(1, 'd-1'),
  ...runStarted('r1', 1),
  ...runFailed('r1', 1),
  ...prOneReRun({
    testRunId: 'rr1',
    of: 'r1',
    attempt: 1,
    cause: 'NO_TEST_RESULTS',
    detail: 're-run 1 of 1',
    when: '2026-01-01T00:01:00.000Z',
  }),
  ...runPassed('rr1', 1),
  merged(1, 'rr1'),
  ...batchStarted('b1', [2, 3]),
  ...batchFailed('b1', [2, 3]),
  prCancelled(4),
  ...runStarted('r5', 5),
  ...runStarted('r6', 6, [5]),
  ...runFailed('r6', 6),
  prSubmitted(8, HIGH),
];

/** What a state holds, in a form two states can be compared by (the plan order as PR numbers). */
const view = (s: QueueState) => {
  const order = s.entries as unknown as { started: { prNumber: number }[]; waiting: { prNumber: number }[] };
  return {
    ...s,
    entries: [...s.entries],
    started: order.started.map((e) => e.prNumber),
    waiting: order.waiting.map((e) => e.prNumber),
  };
};

const throughCopy = (s: QueueState): QueueState => queueStateOf(deserialize(serialize(queueStateBody(s))) as never);

describe('queue state snapshots (D292)', () => {
  it.each([3, 9, 15, history.length - 1])(
    'when a state is saved after %i events and folded on, then it equals the state folded without a save',
    (cut) => {
      const straight = foldQueue(history);
      const resumed = foldQueue(history.slice(cut), throughCopy(foldQueue(history.slice(0, cut))));
      expect(view(resumed)).toEqual(view(straight));
    },
  );

  it('when a state is taken back, then its plan order holds the very entries of its map', () => {
    const s = throughCopy(foldQueue(history));
    const order = s.entries as unknown as { waiting: object[] };
    expect(order.waiting.length).toBeGreaterThan(0);
    for (const e of order.waiting) expect([...s.entries.values()]).toContain(e);
  });

  it('when the fold of a fixed history changes, then QUEUE_STATE_SCHEMA is raised with the pinned digest', () => {
    // A changed digest means saved states would be read as something they are not: raise the schema
    // number and pin the new digest beside it (an older snapshot is then folded again, never misread).
    const text = JSON.stringify(view(foldQueue(history)), (_k, v: unknown) => (v instanceof Map ? [...v] : v));
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
    expect({ schema: QUEUE_STATE_SCHEMA, digest }).toEqual({ schema: 7, digest: '10951dc727916697' });
  });
});
