import { EventQueue } from './event-queue';
import { Prng } from './prng';

const drain = <T>(q: EventQueue<T>): { time: number; item: T }[] => {
  const out: { time: number; item: T }[] = [];
  for (let e = q.pop(); e; e = q.pop()) out.push(e);
  return out;
};

describe('EventQueue', () => {
  it('when empty, then pop and peek answer undefined', () => {
    const q = new EventQueue<string>();
    expect(q.pop()).toBeUndefined();
    expect(q.peekTime()).toBeUndefined();
    expect(q.size).toBe(0);
  });

  it('when events are pushed out of order, then they come out by time', () => {
    const q = new EventQueue<string>();
    q.push(30, 'c');
    q.push(10, 'a');
    q.push(20, 'b');
    expect(q.peekTime()).toBe(10);
    expect(drain(q).map((e) => e.item)).toEqual(['a', 'b', 'c']);
  });

  it('when events share a time, then they come out in the order they were pushed', () => {
    const q = new EventQueue<number>();
    for (let i = 0; i < 50; i++) q.push(i % 3, i);
    const out = drain(q);
    for (const t of [0, 1, 2]) {
      const items = out.filter((e) => e.time === t).map((e) => e.item);
      expect(items).toEqual([...items].sort((a, b) => a - b));
    }
  });

  it('when many random events are pushed and popped in between, then every pop is the earliest left', () => {
    const rng = new Prng(11);
    const q = new EventQueue<number>();
    const shadow: number[] = [];
    for (let i = 0; i < 5000; i++) {
      if (shadow.length > 0 && rng.chance(0.4)) {
        shadow.sort((a, b) => a - b);
        expect(q.pop()?.time).toBe(shadow.shift());
      } else {
        const t = rng.int(1000);
        q.push(t, i);
        shadow.push(t);
      }
    }
    expect(q.size).toBe(shadow.length);
  });

  it('when a time is not finite, then the push is refused', () => {
    expect(() => new EventQueue<number>().push(Number.NaN, 1)).toThrow(RangeError);
  });
});
