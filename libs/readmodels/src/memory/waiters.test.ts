import { CheckpointWaiters } from './waiters';

describe('CheckpointWaiters', () => {
  it('when the checkpoint reaches some waiters, then only those resolve true', async () => {
    const waiters = new CheckpointWaiters();
    const low = waiters.wait(5n, 10_000);
    const high = waiters.wait(9n, 10_000);
    waiters.reached(7n);
    expect(await low).toBe(true);
    waiters.cancelAll();
    expect(await high).toBe(false);
  });

  it('when the timeout passes first, then the waiter resolves false', async () => {
    const waiters = new CheckpointWaiters();
    expect(await waiters.wait(1n, 5)).toBe(false);
  });
});
