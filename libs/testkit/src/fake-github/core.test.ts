import { FakeCore, type Behaviour } from './core';
import type { FakeApp } from './model';
import type { View } from './representations/view';
import type { FakeState } from './state';
import type { WebhookSender } from './webhook-sender';

const behaviour: Behaviour = { mergedFlagDelayMs: 0, pendingMergeState: 'unknown', mergeabilityDelayMs: 0, latencyMs: 0 };

/** A core with nothing behind it: the background-task rules need none of its collaborators. */
const bareCore = (): FakeCore =>
  new FakeCore('/nonexistent', {} as FakeState, {} as View['urls'], {} as FakeApp, {} as FakeApp, {} as WebhookSender, null, behaviour);

const deferred = (): { promise: Promise<void>; resolve: () => void } => {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('FakeCore background tasks', () => {
  it('when the fake stops while a background task runs, then stop waits for the task to finish', async () => {
    const core = bareCore();
    const started = deferred();
    const release = deferred();
    let finished = false;
    core.later(0, async () => {
      started.resolve();
      await release.promise;
      finished = true;
    });
    await started.promise;

    let stopped = false;
    const stopping = core.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);

    release.resolve();
    await stopping;
    expect(finished).toBe(true);
  });

  it('when the fake stops before a task’s timer fires, then the task never runs and stop does not wait for it', async () => {
    const core = bareCore();
    let ran = false;
    core.later(10_000, () => {
      ran = true;
    });

    await core.stop();

    expect(ran).toBe(false);
  });

  it('when a background task fails, then the failure is a violation and stop still settles', async () => {
    const core = bareCore();
    const started = deferred();
    core.later(0, async () => {
      started.resolve();
      throw new Error('git exploded');
    });
    await started.promise;

    await core.stop();

    expect(core.violations).toEqual(['background task failed: Error: git exploded']);
  });
});
