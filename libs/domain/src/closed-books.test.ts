import { decide } from './decide';
import { DomainError } from './errors';
import type { QueueEvent } from './events';
import { CLOSED_KEPT, entryOf, foldQueue, type QueueState } from './state';
import { merged, runPassed, runStarted } from './engine/testing/engine-fixtures';
import { at, prCancelled, prSubmitted, queueCreated, targetsSet } from './testing/fixtures';

/** PR n's whole cycle, alone in its run: targets, submission, a passing run, the merge. */
const mergedCycle = (n: number): QueueEvent[] => [
  targetsSet(n, `digest-${n}`),
  prSubmitted(n),
  ...runStarted(`r${n}`, n),
  ...runPassed(`r${n}`, n),
  merged(n, `r${n}`),
];

const afterMerges = (count: number): QueueState => {
  const events: QueueEvent[] = [queueCreated()];
  for (let n = 1; n <= count; n++) events.push(...mergedCycle(n));
  return foldQueue(events);
};

const ctx = { now: at(60), newId: () => 'new-entry' };

describe('closing the books (D250)', () => {
  it('when many PRs have merged, then the hot window, the runs and the targets do not grow with them', () => {
    const s = afterMerges(CLOSED_KEPT + 500);
    expect(s.entries.size).toBe(0);
    expect(s.runs.size).toBe(0);
    expect(s.closed.size).toBe(CLOSED_KEPT);
    expect(s.targets.size).toBeLessThanOrEqual(CLOSED_KEPT);
  });

  it('when a PR merged, then commands still see it ended: a cancel is refused as no longer in the queue', () => {
    const s = afterMerges(3);
    expect(s.entries.has(2)).toBe(false);
    expect(entryOf(s, 2)?.state).toBe('merged');
    expect(() => decide(s, { type: 'CancelPullRequest', prNumber: 2 }, ctx)).toThrow(
      expect.objectContaining({ code: 'PR_NOT_IN_ACTIVE_STATE' }) as DomainError,
    );
  });

  it('when a closed PR is submitted again, then it keeps its entry id and comes back into the hot window', () => {
    const s = afterMerges(2);
    const events = decide(
      s,
      {
        type: 'SubmitPullRequest',
        pr: { number: 1, title: 'again', author: 'a', headSha: 'new-head', baseBranch: 'main', state: 'open', mergeability: 'mergeable' },
      },
      ctx,
    );
    expect(events[0]).toMatchObject({ type: 'PrSubmitted', data: { entryId: 'entry-1' } });
    const next = foldQueue(events, s);
    expect(next.entries.get(1)?.state).toBe('pending');
    expect(next.closed.has(1)).toBe(false);
  });

  it('when a merged PR is still stacked under a run that is testing, then it stays in the hot window until that run ends', () => {
    const s = foldQueue([
      queueCreated(),
      prSubmitted(1),
      prSubmitted(2),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      ...runPassed('r1', 1),
      merged(1, 'r1'),
    ]);
    // The planner reads the stacked PR's state to know the bottom of r2's stack has landed.
    expect(s.entries.get(1)?.state).toBe('merged');
    const after = foldQueue([...runPassed('r2', 2, at(50)), merged(2, 'r2', at(51))], s);
    expect(after.entries.size).toBe(0);
    expect([...after.closed.keys()]).toEqual([1, 2]);
  });

  it('when a PR ended longer ago than the books keep, then it is forgotten by the write side and its targets go with it', () => {
    const s = foldQueue([queueCreated(), targetsSet(1, 'old'), prSubmitted(1), prCancelled(1)], afterMerges(0));
    expect(entryOf(s, 1)?.state).toBe('cancelled');
    const later = foldQueue(Array.from({ length: CLOSED_KEPT }, (_, i) => mergedCycle(i + 2)).flat(), s);
    expect(entryOf(later, 1)).toBeUndefined();
    expect(later.targets.has(1)).toBe(false);
  });
});
