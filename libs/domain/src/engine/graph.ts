import type { Entry, QueueState } from '../state';
import type { TargetOverlaps } from './overlaps';

/**
 * Who depends on whom, over the plan order. In single mode every entry depends on every entry ahead
 * of it. In parallel mode an entry depends on the entries ahead whose impacted targets overlap its
 * own (reference trunk §5.1): `ALL` (or no known list) overlaps everything ahead and behind, `[]`
 * overlaps nothing. The dependencies form a DAG over queue order: edges only point ahead.
 */
export interface DepGraph {
  readonly parallel: boolean;
  /**
   * The entries ahead of `e` that it depends on, directly or through others, in plan order. The walk
   * only enters and reports entries `through` accepts: a dependency reached only through a refused
   * entry is not reported.
   */
  closureAhead(e: Entry, through: (x: Entry) => boolean): Entry[];
  /** Whether `e` directly depends on an entry of `set` (PR numbers) that is ahead of it. */
  dependsOnAny(e: Entry, set: ReadonlySet<number>): boolean;
  /** Whether anything still in the queue ahead of `e` is something it depends on. */
  hasAhead(e: Entry): boolean;
}

/** An entry's place in the plan order by PR number: a Map, or a search in the state's order index. */
export interface Positions {
  get(prNumber: number): number | undefined;
}

/** How an entry's targets relate to the others: a digest of a known list, or one of these two. */
const ALL = '\u0000all';
const NONE = '\u0000none';

const byPosition = (pos: Positions) => (a: Entry, b: Entry) => (pos.get(a.prNumber) ?? 0) - (pos.get(b.prNumber) ?? 0);

/** `order` may be given as a function, so a round that asks nothing of the graph never copies the order. */
export const singleGraph = (order: readonly Entry[] | (() => readonly Entry[]), pos: Positions): DepGraph => ({
  parallel: false,
  closureAhead: (e, through) => (typeof order === 'function' ? order() : order).slice(0, pos.get(e.prNumber) ?? 0).filter(through),
  dependsOnAny: (e, set) => {
    const mine = pos.get(e.prNumber) ?? 0;
    for (const n of set) if ((pos.get(n) ?? Infinity) < mine) return true;
    return false;
  },
  hasAhead: (e) => (pos.get(e.prNumber) ?? 0) > 0,
});

/**
 * The parallel graph of one planning round. Neighbour lists are built lazily, only for the entries
 * the round asks about (the runs in flight and the next ones to start), from the engine's overlap
 * index: no pairwise comparison of target lists, and no work for the thousands of entries waiting
 * further back.
 */
export const parallelGraph = (s: QueueState, order: readonly Entry[], pos: Positions, overlaps: TargetOverlaps | undefined): DepGraph => {
  // One pass over the queue on every planning round: a few look-ups per entry and nothing allocated for most.
  const kinds: string[] = new Array<string>(order.length);
  const byDigest = new Map<string, Entry | Entry[]>();
  const everywhere: Entry[] = [];
  for (let i = 0; i < order.length; i++) {
    const e = order[i] as Entry;
    const ref = s.targets.get(e.prNumber)?.get(e.headSha);
    let k: string;
    if (!ref || ref.all || !overlaps) k = ALL;
    else if (ref.count === 0) k = NONE;
    else k = overlaps.neighbours(ref.digest) === undefined ? ALL : ref.digest;
    kinds[i] = k;
    if (k === ALL) everywhere.push(e);
    else if (k !== NONE) {
      const held = byDigest.get(k);
      if (held === undefined) byDigest.set(k, e);
      else if (Array.isArray(held)) held.push(e);
      else byDigest.set(k, [held, e]);
    }
  }
  const kindOf = (e: Entry): string => {
    const at = pos.get(e.prNumber);
    return at === undefined ? ALL : (kinds[at] as string);
  };
  const posOf = (e: Entry): number => pos.get(e.prNumber) ?? Infinity;
  const holdersOf = (digest: string): readonly Entry[] => {
    const held = byDigest.get(digest);
    return held === undefined ? [] : Array.isArray(held) ? held : [held];
  };

  const memo = new Map<number, Entry[]>();
  /** Every entry sharing a target with `e` (ahead or behind), `ALL` entries included; not for `ALL` entries themselves. */
  const neighbours = (e: Entry): Entry[] => {
    const known = memo.get(e.prNumber);
    if (known) return known;
    const k = kindOf(e);
    const out = everywhere.filter((x) => x.prNumber !== e.prNumber);
    if (k !== ALL && k !== NONE) {
      for (const x of holdersOf(k)) if (x.prNumber !== e.prNumber) out.push(x);
      for (const d of overlaps?.neighbours(k) ?? []) for (const x of holdersOf(d)) out.push(x);
    }
    memo.set(e.prNumber, out);
    return out;
  };
  const ahead = (e: Entry): Entry[] => {
    const mine = posOf(e);
    if (kindOf(e) === ALL) return order.slice(0, mine);
    return neighbours(e).filter((x) => posOf(x) < mine);
  };
  const overlap = (a: Entry, b: Entry): boolean => {
    const ka = kindOf(a);
    const kb = kindOf(b);
    if (ka === ALL || kb === ALL) return true;
    if (ka === NONE || kb === NONE) return false;
    return ka === kb || (overlaps?.neighbours(ka)?.has(kb) ?? true);
  };

  return {
    parallel: true,
    closureAhead: (e, through) => {
      const seen = new Set<number>([e.prNumber]);
      const found: Entry[] = [];
      const todo = [e];
      for (let next = todo.pop(); next; next = todo.pop()) {
        for (const x of ahead(next)) {
          if (seen.has(x.prNumber) || !through(x)) continue;
          seen.add(x.prNumber);
          found.push(x);
          todo.push(x);
        }
      }
      return found.sort(byPosition(pos));
    },
    dependsOnAny: (e, set) => {
      if (set.size === 0) return false;
      const mine = posOf(e);
      if (kindOf(e) !== ALL && set.size < neighbours(e).length) {
        for (const n of set) {
          const x = s.entries.get(n);
          if (x && posOf(x) < mine && overlap(e, x)) return true;
        }
        return false;
      }
      for (const x of kindOf(e) === ALL ? order.slice(0, mine) : neighbours(e)) if (posOf(x) < mine && set.has(x.prNumber)) return true;
      return false;
    },
    hasAhead: (e) => {
      const mine = posOf(e);
      if (kindOf(e) === ALL) return mine > 0;
      return neighbours(e).some((x) => posOf(x) < mine);
    },
  };
};
