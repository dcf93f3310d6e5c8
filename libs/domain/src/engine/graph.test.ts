import fc from 'fast-check';
import type { QueueEvent } from '../events';
import { foldQueue } from '../state';
import { at, headShaOf, prSubmitted, queueCreated } from '../testing/fixtures';
import { parallelGraph } from './graph';
import { planOrder } from './order';
import { overlapsOf } from './testing/engine-fixtures';

type Upload = string[] | 'ALL';

/** A parallel queue of PRs 1..n with these uploads (an empty list is `[]`). */
const queueOf = (uploads: Upload[]) => {
  const lists: Record<string, string[]> = {};
  const events: QueueEvent[] = [queueCreated({ settings: { mode: 'parallel' } })];
  uploads.forEach((u, i) => {
    const n = i + 1;
    const digest = `d${n}`;
    if (u !== 'ALL' && u.length > 0) lists[digest] = u;
    const ref = u === 'ALL' ? { digest: 'all', count: 0, all: true } : { digest, count: u.length, all: false };
    events.push({ type: 'ImpactedTargetsSet', data: { prNumber: n, headSha: headShaOf(n), ...ref, at: at(0) } }, prSubmitted(n));
  });
  const s = foldQueue(events);
  const order = planOrder(s);
  const pos = new Map(order.map((e, i) => [e.prNumber, i]));
  return { s, order, graph: parallelGraph(s, order, pos, overlapsOf(lists)) };
};

/** The definition: i depends on j < i when their uploads overlap (ALL overlaps all, [] nothing but ALL), closed transitively. */
const dependsDirectly = (a: Upload, b: Upload): boolean => a === 'ALL' || b === 'ALL' || a.some((t) => b.includes(t));
const bruteClosure = (uploads: Upload[], i: number): number[] => {
  const found = new Set<number>();
  const todo = [i];
  while (todo.length > 0) {
    const k = todo.pop() as number;
    for (let j = 0; j < k; j++) {
      if (found.has(j) || !dependsDirectly(uploads[k] as Upload, uploads[j] as Upload)) continue;
      found.add(j);
      todo.push(j);
    }
  }
  return [...found].sort((x, y) => x - y).map((j) => j + 1);
};

describe('the parallel dependency graph', () => {
  it('when targets chain A→B→C, then C depends on A through B, and a PR of another area on none', () => {
    const { order, graph } = queueOf([['a'], ['a', 'b'], ['b'], ['z']]);
    const [, , c, z] = order;
    expect(graph.closureAhead(c!, () => true).map((e) => e.prNumber)).toEqual([1, 2]);
    expect(graph.closureAhead(z!, () => true)).toEqual([]);
    expect(graph.hasAhead(z!)).toBe(false);
  });

  it('when any uploads are queued, then the closure is the transitive closure of overlaps over the PRs ahead', () => {
    const upload = fc.oneof(
      { weight: 1, arbitrary: fc.constant<Upload>('ALL') },
      { weight: 6, arbitrary: fc.array(fc.constantFrom('t1', 't2', 't3', 't4', 't5'), { maxLength: 3 }) },
    );
    fc.assert(
      fc.property(fc.array(upload, { minLength: 1, maxLength: 9 }), (uploads) => {
        const { order, graph } = queueOf(uploads);
        order.forEach((e, i) => {
          expect(graph.closureAhead(e, () => true).map((x) => x.prNumber)).toEqual(bruteClosure(uploads, i));
          expect(graph.hasAhead(e)).toBe(bruteClosure(uploads, i).length > 0);
          const all = new Set(order.map((x) => x.prNumber));
          expect(graph.dependsOnAny(e, all)).toBe(bruteClosure(uploads, i).length > 0);
        });
      }),
    );
  });
});
