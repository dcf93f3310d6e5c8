import { startPeriodic } from './periodic';

describe('periodic work', () => {
  it('when runOnce is asked while a pass is under way, then both callers get that pass', async () => {
    let passes = 0;
    let finish: (n: number) => void = () => undefined;
    const p = startPeriodic({
      minutes: 0,
      pass: () => {
        passes++;
        return new Promise<number>((resolve) => (finish = resolve));
      },
      onError: () => undefined,
    });

    const [a, b] = [p.runOnce(), p.runOnce()];
    finish(7);

    expect(await Promise.all([a, b])).toEqual([7, 7]);
    expect(passes).toBe(1);
    await p.stop();
  });

  it('when stopped during a pass, then stop waits for it and the pass is told', async () => {
    let finish: () => void = () => undefined;
    let sawStop = false;
    const p = startPeriodic({
      minutes: 60,
      pass: async (stopped) => {
        await new Promise<void>((resolve) => (finish = resolve));
        sawStop = stopped();
      },
      onError: () => undefined,
    });
    const pass = p.runOnce();

    const stopping = p.stop();
    finish();
    await stopping;

    await pass;
    expect(sawStop).toBe(true);
  });
});
