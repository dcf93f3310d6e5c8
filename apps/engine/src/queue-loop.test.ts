import type { QueueDriver } from '@railyard/queue-driver';
import { QueueLoop, type LoopObserver } from './queue-loop';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A driver whose passes fail while `failing` holds, counting them. */
const driverThat = (failing: { now: boolean }) => {
  const passes: boolean[] = [];
  const driver = {
    stats: { passes: 0, rounds: 0, actions: 0 },
    stop: () => undefined,
    pass: async (opts: { verify?: boolean } = {}) => {
      passes.push(opts.verify ?? false);
      if (failing.now) throw Object.assign(new Error('no repository'), { code: 'REPO_NOT_FOUND' });
      return 'settled' as const;
    },
  };
  return { driver: driver as unknown as QueueDriver, passes };
};

const recorder = () => {
  const seen = { failures: 0, failing: 0, recovered: [] as number[] };
  const observer: LoopObserver = {
    onFailure: () => void seen.failures++,
    onFailing: () => void seen.failing++,
    onRecovered: (n) => void seen.recovered.push(n),
  };
  return { seen, observer };
};

describe('QueueLoop', () => {
  it('when passes keep failing while ticks ask every 2 ms, then passes run only at backoff steps and the failure is reported once', async () => {
    const failing = { now: true };
    const { driver, passes } = driverThat(failing);
    const { seen, observer } = recorder();
    const loop = new QueueLoop('q', driver, { owns: async () => true, observer, backoff: { minMs: 20, maxMs: 80 } });
    const tick = setInterval(() => loop.schedule(), 2);
    await sleep(400);
    clearInterval(tick);
    await loop.stop();
    // 400 ms of 2 ms ticks is 200 requests; delays of 20–40, 40–80, then 80–160 ms allow at most a handful of passes.
    expect(passes.length).toBeGreaterThanOrEqual(2);
    expect(passes.length).toBeLessThanOrEqual(9);
    expect(seen.failures).toBe(passes.length);
    expect(seen.failing).toBe(1);
    // Every retry re-reads the facts: whatever failed may have left them behind.
    expect(passes.slice(1).every((verify) => verify)).toBe(true);
  });

  it('when a pass succeeds after failures, then recovery is reported once and the queue is scheduled normally again', async () => {
    const failing = { now: true };
    const { driver, passes } = driverThat(failing);
    const { seen, observer } = recorder();
    const loop = new QueueLoop('q', driver, { owns: async () => true, observer, backoff: { minMs: 10, maxMs: 20 } });
    loop.schedule();
    await sleep(30);
    failing.now = false;
    await sleep(60);
    expect(seen.recovered).toHaveLength(1);
    expect(loop.inBackoff).toBe(false);
    const before = passes.length;
    loop.schedule();
    await loop.idle();
    expect(passes.length).toBe(before + 1);
    await loop.stop();
  });

  it('when requests come in a burst with withinMs, then one pass serves them all', async () => {
    const { driver, passes } = driverThat({ now: false });
    const { observer } = recorder();
    const loop = new QueueLoop('q', driver, { owns: async () => true, observer });
    for (let i = 0; i < 50; i++) loop.schedule({ withinMs: 20 });
    await loop.idle();
    expect(passes).toHaveLength(1);
    await loop.stop();
  });

  it('when the loop is stopped during a backoff, then no pass runs after', async () => {
    const { driver, passes } = driverThat({ now: true });
    const { observer } = recorder();
    const loop = new QueueLoop('q', driver, { owns: async () => true, observer, backoff: { minMs: 30, maxMs: 30 } });
    loop.schedule();
    await loop.idle();
    expect(loop.inBackoff).toBe(true);
    await loop.stop();
    const after = passes.length;
    await sleep(100);
    expect(passes.length).toBe(after);
  });
  it('when a pass held a start for a verdict due within moments, then the loop passes again when its window closes', async () => {
    const passes: number[] = [];
    const t0 = Date.now();
    const driver = {
      stats: { passes: 0, rounds: 0, actions: 0 },
      stop: () => undefined,
      // The first pass holds a start for 30 ms; no event comes, so only the loop's own wake-up can pass again.
      get wakeInMs() {
        return passes.length === 1 ? 30 : undefined;
      },
      pass: async () => {
        passes.push(Date.now() - t0);
        return 'settled' as const;
      },
    } as unknown as QueueDriver;
    const { observer } = recorder();
    const loop = new QueueLoop('q', driver, { owns: async () => true, observer });
    loop.schedule();
    await sleep(200);
    await loop.stop();
    expect(passes).toHaveLength(2);
    expect((passes[1] as number) - (passes[0] as number)).toBeGreaterThanOrEqual(30);
  });
});
