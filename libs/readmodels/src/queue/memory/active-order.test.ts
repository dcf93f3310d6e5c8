import type { PrView } from '../port';
import { ActiveOrder } from './active-order';

const view = (prNumber: number, priorityValue: number, seq: number): PrView => ({ prNumber, priorityValue, seq }) as PrView;

describe('ActiveOrder', () => {
  it('when PRs are placed out of order, then they are kept in queue order and the PRs ahead are counted', () => {
    const order = new ActiveOrder();
    order.set('a', view(1, 100, 3));
    order.set('b', view(2, 100, 1));
    order.set('c', view(3, 50, 7));
    order.set('d', view(4, 100, 2));
    expect(order.keys()).toEqual(['c', 'b', 'd', 'a']);
    expect(order.ahead('a', 2)).toEqual({ count: 3, first: [3, 2] });
    expect(order.ahead('c', 5)).toEqual({ count: 0, first: [] });
    expect(order.ahead('gone', 5)).toBeNull();
  });

  it('when a PR changes priority or leaves, then it moves or is gone', () => {
    const order = new ActiveOrder();
    for (const [key, n, seq] of [
      ['a', 1, 1],
      ['b', 2, 2],
      ['c', 3, 3],
    ] as const)
      order.set(key, view(n, 100, seq));
    order.set('c', view(3, 10, 3));
    expect(order.keys()).toEqual(['c', 'a', 'b']);
    order.delete('a');
    order.delete('a');
    expect(order.keys()).toEqual(['c', 'b']);
    expect(order.ahead('b', 5)).toEqual({ count: 1, first: [3] });
  });
});
