import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  it('when more tasks arrive than the limit, then no more than the limit run at once and all finish', async () => {
    const slots = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const task = async (i: number): Promise<number> => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return i;
    };

    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => slots.run(() => task(i))));

    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
  });

  it('when a task fails, then its slot is given back', async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(slots.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});
