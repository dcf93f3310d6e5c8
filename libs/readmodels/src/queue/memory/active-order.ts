import type { PrView } from '../port';
import { byQueueOrder } from '../projection/order';

interface Slot {
  key: string;
  prNumber: number;
  priorityValue: number;
  seq: number;
}

/** Queue order, the key breaking ties so the order is total and a search finds one slot. */
const compare = (a: Slot, b: Slot): number => byQueueOrder(a, b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * One queue's active PRs kept in queue order as they change (docs/decisions.md D122): a PR is placed
 * by binary search when its document is written, so listing the queue needs no sort and the PRs ahead
 * of one are a search away, where a sort of every active PR per read made each submission cost more
 * the longer the queue grew.
 */
export class ActiveOrder {
  private readonly slots: Slot[] = [];
  private readonly byKey = new Map<string, Slot>();

  /** Places (or moves) the PR at its position in queue order. */
  set(key: string, view: PrView): void {
    const old = this.byKey.get(key);
    if (old && old.priorityValue === view.priorityValue && old.seq === view.seq) return;
    if (old) this.delete(key);
    const slot: Slot = { key, prNumber: view.prNumber, priorityValue: view.priorityValue, seq: view.seq };
    this.slots.splice(this.searchFrom(slot), 0, slot);
    this.byKey.set(key, slot);
  }

  delete(key: string): void {
    const slot = this.byKey.get(key);
    if (!slot) return;
    this.slots.splice(this.searchFrom(slot), 1);
    this.byKey.delete(key);
  }

  /** The keys in queue order. */
  keys(): string[] {
    return this.slots.map((s) => s.key);
  }

  /** How many PRs come before `key` and the numbers of the first `first` of them; null when it is not here. */
  ahead(key: string, first: number): { count: number; first: number[] } | null {
    const slot = this.byKey.get(key);
    if (!slot) return null;
    const count = this.searchFrom(slot);
    return { count, first: this.slots.slice(0, Math.min(count, first)).map((s) => s.prNumber) };
  }

  /** The index of the first slot not before `slot`: where it is, or where it goes. */
  private searchFrom(slot: Slot): number {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.slots[mid] as Slot, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
