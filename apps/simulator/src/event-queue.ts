/**
 * The discrete-event simulation's agenda: a binary min-heap on (time, insertion order). Events at the
 * same instant come out in the order they were scheduled, which keeps a run reproducible.
 */
export class EventQueue<T> {
  private readonly heap: { time: number; seq: number; item: T }[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(time: number, item: T): void {
    if (!Number.isFinite(time)) throw new RangeError(`event time must be finite, got ${time}`);
    this.heap.push({ time, seq: this.seq++, item });
    this.up(this.heap.length - 1);
  }

  /** Time of the earliest event, or undefined when none is left. */
  peekTime(): number | undefined {
    return this.heap[0]?.time;
  }

  pop(): { time: number; item: T } | undefined {
    const top = this.heap[0];
    if (!top) return undefined;
    const last = this.heap.pop() as (typeof this.heap)[number];
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return { time: top.time, item: top.item };
  }

  private less(i: number, j: number): boolean {
    const a = this.heap[i] as (typeof this.heap)[number];
    const b = this.heap[j] as (typeof this.heap)[number];
    return a.time < b.time || (a.time === b.time && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const t = this.heap[i] as (typeof this.heap)[number];
    this.heap[i] = this.heap[j] as (typeof this.heap)[number];
    this.heap[j] = t;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.heap.length && this.less(l, m)) m = l;
      if (r < this.heap.length && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
