import { Slots } from './slots';

describe('Slots', () => {
  it('when more ask than the limit, then the rest wait in order and get a slot as one is released', async () => {
    const slots = new Slots(1);
    const never = new AbortController().signal;
    expect(await slots.acquire(never)).toBe(true);
    const order: number[] = [];
    const second = slots.acquire(never).then((ok) => order.push(2) && ok);
    const third = slots.acquire(never).then((ok) => order.push(3) && ok);
    slots.release();
    await second;
    slots.release();
    await third;
    expect(order).toEqual([2, 3]);
    slots.release();
    expect(slots.inUse).toBe(0);
  });

  it('when a waiter’s signal aborts, then it leaves the line with false and the next one moves up', async () => {
    const slots = new Slots(1);
    const never = new AbortController().signal;
    await slots.acquire(never);
    const giveUp = new AbortController();
    const abandoned = slots.acquire(giveUp.signal);
    const next = slots.acquire(never);
    giveUp.abort();
    expect(await abandoned).toBe(false);
    slots.release();
    expect(await next).toBe(true);
  });

  it('when the signal aborted already, then no slot is taken', async () => {
    const slots = new Slots(2);
    const c = new AbortController();
    c.abort();
    expect(await slots.acquire(c.signal)).toBe(false);
    expect(slots.inUse).toBe(0);
  });
});
