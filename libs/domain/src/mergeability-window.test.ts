import { mergeabilityWindow, mergeabilityWindowSize, MERGEABILITY_WINDOW_MIN } from './mergeability-window';
import { foldQueue } from './state';
import { prCancelled, prSubmitted, queueCreated } from './testing/fixtures';

describe('the mergeability window', () => {
  it('when a queue starts one PR at a time, then the window holds the minimum', () => {
    expect(mergeabilityWindowSize({ concurrency: 1, batch: false, batchingMinSize: 4 })).toBe(MERGEABILITY_WINDOW_MIN);
  });

  it('when a queue batches, then the window holds two waves of full batches', () => {
    expect(mergeabilityWindowSize({ concurrency: 3, batch: true, batchingMinSize: 4 })).toBe(24);
    expect(mergeabilityWindowSize({ concurrency: 5, batch: false, batchingMinSize: 4 })).toBe(10);
  });

  it('when 40 PRs wait, then the window is the first ones in queue order, an urgent PR first', () => {
    const s = foldQueue([
      queueCreated({ settings: { concurrency: 1 } }),
      ...Array.from({ length: 40 }, (_, i) => prSubmitted(i + 1, { state: 'not_ready' })),
      prSubmitted(41, { state: 'not_ready', priorityValue: 0, priorityName: 'urgent' }),
    ]);
    expect([...mergeabilityWindow(s)]).toEqual([41, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('when PRs ahead settle, then the next ones move into the window', () => {
    const s = foldQueue([
      queueCreated({ settings: { concurrency: 1 } }),
      ...Array.from({ length: 12 }, (_, i) => prSubmitted(i + 1, { state: 'not_ready' })),
      prCancelled(1),
      prCancelled(3),
    ]);
    expect([...mergeabilityWindow(s)].sort((a, b) => a - b)).toEqual([2, 4, 5, 6, 7, 8, 9, 10]);
  });
});
