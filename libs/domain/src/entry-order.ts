import { isTerminal } from './events';
import type { Entry } from './state';

/**
 * The planner's order kept as the entries change, so a plan costs what it acts on rather than a sort of
 * every active PR (issue 29, docs/decisions.md D254). Entries that started testing keep the places they
 * took, by `flightSeq`; the waiting ones follow by priority and submission. Not-ready and ended
 * entries take no place.
 */
export interface PlanOrderIndex {
  /** Entries in flight, by the order they first started. */
  readonly started: readonly Entry[];
  /** Entries not started yet, in queue order. */
  readonly waiting: readonly Entry[];
}

type Compare = (a: Entry, b: Entry) => number;
const byFlight: Compare = (a, b) => (a.flightSeq ?? 0) - (b.flightSeq ?? 0);
const byQueue: Compare = (a, b) => a.priorityValue - b.priorityValue || a.seq - b.seq;

const takesPlace = (e: Entry): boolean => !isTerminal(e.state) && e.state !== 'not_ready';

/** First index whose entry does not sort before `e` (`after`: first that sorts after it). */
const boundOf = (list: readonly Entry[], e: Entry, compare: Compare, after: boolean): number => {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(list[mid] as Entry, e);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** Where this very entry object sits in `list`, or -1. */
const indexIn = (list: readonly Entry[], e: Entry, compare: Compare): number => {
  for (let i = boundOf(list, e, compare, false); i < list.length && compare(list[i] as Entry, e) === 0; i++) if (list[i] === e) return i;
  return -1;
};

/**
 * The queue state's `entries`: a Map that files each entry it is given into the plan order, so every
 * place evolve sets or deletes an entry keeps the order too, with no second rule to forget.
 */
export class EntryMap extends Map<number, Entry> implements PlanOrderIndex {
  readonly started: Entry[] = [];
  readonly waiting: Entry[] = [];

  override set(prNumber: number, e: Entry): this {
    const old = this.get(prNumber);
    if (old !== undefined) this.unfile(old);
    super.set(prNumber, e);
    this.file(e);
    return this;
  }

  override delete(prNumber: number): boolean {
    const old = this.get(prNumber);
    if (old !== undefined) this.unfile(old);
    return super.delete(prNumber);
  }

  override clear(): void {
    this.started.length = 0;
    this.waiting.length = 0;
    super.clear();
  }

  private file(e: Entry): void {
    if (!takesPlace(e)) return;
    const started = e.flightSeq !== undefined;
    const list = started ? this.started : this.waiting;
    const at = boundOf(list, e, started ? byFlight : byQueue, true);
    // Most entries join at the back (the latest submission, the latest start): no element moves.
    if (at === list.length) list.push(e);
    else list.splice(at, 0, e);
  }

  private unfile(e: Entry): void {
    if (!takesPlace(e)) return;
    const started = e.flightSeq !== undefined;
    const list = started ? this.started : this.waiting;
    const i = indexIn(list, e, started ? byFlight : byQueue);
    if (i >= 0) list.splice(i, 1);
  }
}

/** The plan order of any entries map: the kept one, or sorted now when the map is a plain one (a copy). */
export const planOrderIndexOf = (entries: ReadonlyMap<number, Entry>): PlanOrderIndex => {
  if (entries instanceof EntryMap) return entries;
  const placed = [...entries.values()].filter(takesPlace);
  return {
    started: placed.filter((e) => e.flightSeq !== undefined).sort(byFlight),
    waiting: placed.filter((e) => e.flightSeq === undefined).sort(byQueue),
  };
};

/** The entry's place in the plan order (started first, then waiting), or undefined when it takes none. */
export const placeIn = (index: PlanOrderIndex, e: Entry): number | undefined => {
  if (!takesPlace(e)) return undefined;
  if (e.flightSeq !== undefined) {
    const i = indexIn(index.started, e, byFlight);
    return i < 0 ? undefined : i;
  }
  const i = indexIn(index.waiting, e, byQueue);
  return i < 0 ? undefined : index.started.length + i;
};
