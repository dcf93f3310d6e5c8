/** Work done on a timer that can also be asked for now; one pass at a time. */
export interface Periodic<T> {
  /** One pass now, or the one under way. */
  runOnce(): Promise<T>;
  /** No more passes; waits for the one under way. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `minutes` (none when 0), the first after `firstAfterMinutes` (default `minutes`),
 * with ±10 % jitter so the replicas of a deployment do not all start in the same second. A failing
 * timed pass goes to `onError` and the next one is still scheduled.
 */
export const startPeriodic = <T>(o: {
  minutes: number;
  firstAfterMinutes?: number;
  pass: (stopped: () => boolean) => Promise<T>;
  onError: (err: unknown) => void;
}): Periodic<T> => {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<T> | null = null;
  let stopped = false;

  const runOnce = (): Promise<T> => {
    running ??= o
      .pass(() => stopped)
      .finally(() => {
        running = null;
      });
    return running;
  };

  const schedule = (minutes: number): void => {
    if (stopped || o.minutes <= 0) return;
    timer = setTimeout(
      () => {
        runOnce()
          .catch(o.onError)
          .finally(() => schedule(o.minutes));
      },
      minutes * 60_000 * (0.9 + Math.random() * 0.2),
    );
    timer.unref();
  };
  schedule(o.firstAfterMinutes ?? o.minutes);

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
};
