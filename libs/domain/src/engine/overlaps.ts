/**
 * What parallel mode needs to know about impacted targets: which uploaded lists share a target.
 * Lists are named by their digest (`TargetsRef.digest`), so one answer serves every PR and every
 * head that uploaded the same list.
 */
export interface TargetOverlaps {
  /**
   * The digests of the other known lists that share at least one target with `digest`, or undefined
   * when the list is not known (yet): the planner then treats the PR as impacting everything.
   */
  neighbours(digest: string): ReadonlySet<string> | undefined;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * A target name as a 53-bit number: two 32-bit multiplicative hashes of its UTF-16 code units. The
 * index keeps these instead of the names. Two names with the same number would make two PRs look
 * dependent: the safe direction (they only test one after the other), and at 2 million names about
 * one chance in ten thousand.
 */
export const targetKey = (name: string): number => {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ name.length;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
};

/** The sorted, distinct keys of a list. */
const keysOfNames = (targets: Iterable<string>): Float64Array => {
  const all: number[] = [];
  for (const name of targets) all.push(targetKey(name));
  const keys = Float64Array.from(all).sort();
  let kept = 0;
  for (let i = 0; i < keys.length; i++) if (i === 0 || keys[i] !== keys[i - 1]) keys[kept++] = keys[i] as number;
  return keys.slice(0, kept);
};

const EMPTY = -1;

/**
 * Target key → the lists holding it, in typed arrays only: an open-addressing table (linear probing,
 * deletion by backward shift) whose slots head a chain of holder nodes. Ten million holdings then
 * cost flat buffers the garbage collector never walks, instead of millions of small arrays.
 */
class HolderTable {
  private keys = new Float64Array(1024);
  private heads = new Int32Array(1024).fill(EMPTY);
  private used = new Uint8Array(1024);
  private count = 0;
  private next = new Int32Array(1024);
  private list = new Int32Array(1024);
  private nodes = 0;
  private freeNode = EMPTY;

  /** Calls `visit` for every list holding `key`, then records `id` as holding it too. */
  hold(key: number, id: number, visit: (other: number) => void): void {
    const slot = this.slotFor(key);
    for (let n = this.heads[slot] as number; n !== EMPTY; n = this.next[n] as number) visit(this.list[n] as number);
    const node = this.newNode();
    this.list[node] = id;
    this.next[node] = this.heads[slot] as number;
    this.heads[slot] = node;
  }

  release(key: number, id: number): void {
    const slot = this.find(key);
    if (slot === EMPTY) return;
    let prev = EMPTY;
    for (let n = this.heads[slot] as number; n !== EMPTY; prev = n, n = this.next[n] as number) {
      if (this.list[n] !== id) continue;
      if (prev === EMPTY) this.heads[slot] = this.next[n] as number;
      else this.next[prev] = this.next[n] as number;
      this.next[n] = this.freeNode;
      this.freeNode = n;
      break;
    }
    if (this.heads[slot] === EMPTY) this.delete(slot);
  }

  private home(key: number): number {
    // Multiplicative mixing of both halves of the key; the table size is a power of two.
    const lo = key % 0x100000000;
    const hi = Math.floor(key / 0x100000000);
    return (Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0) & (this.keys.length - 1);
  }

  private find(key: number): number {
    const mask = this.keys.length - 1;
    for (let i = this.home(key); this.used[i] === 1; i = (i + 1) & mask) if (this.keys[i] === key) return i;
    return EMPTY;
  }

  private slotFor(key: number): number {
    const found = this.find(key);
    if (found !== EMPTY) return found;
    if ((this.count + 1) * 2 > this.keys.length) this.resize(this.keys.length * 2);
    const mask = this.keys.length - 1;
    let i = this.home(key);
    while (this.used[i] === 1) i = (i + 1) & mask;
    this.used[i] = 1;
    this.keys[i] = key;
    this.heads[i] = EMPTY;
    this.count++;
    return i;
  }

  /** Backward-shift deletion keeps every key reachable from its home slot without tombstones. */
  private delete(slot: number): void {
    const mask = this.keys.length - 1;
    let hole = slot;
    this.used[hole] = 0;
    this.count--;
    for (let j = (hole + 1) & mask; this.used[j] === 1; j = (j + 1) & mask) {
      const h = this.home(this.keys[j] as number);
      const movable = hole <= j ? h <= hole || h > j : h <= hole && h > j;
      if (!movable) continue;
      this.keys[hole] = this.keys[j] as number;
      this.heads[hole] = this.heads[j] as number;
      this.used[hole] = 1;
      this.used[j] = 0;
      hole = j;
    }
  }

  private resize(size: number): void {
    const { keys, heads, used } = this;
    this.keys = new Float64Array(size);
    this.heads = new Int32Array(size).fill(EMPTY);
    this.used = new Uint8Array(size);
    const mask = size - 1;
    for (let s = 0; s < keys.length; s++) {
      if (used[s] !== 1) continue;
      let i = this.home(keys[s] as number);
      while (this.used[i] === 1) i = (i + 1) & mask;
      this.used[i] = 1;
      this.keys[i] = keys[s] as number;
      this.heads[i] = heads[s] as number;
    }
  }

  private newNode(): number {
    if (this.freeNode !== EMPTY) {
      const n = this.freeNode;
      this.freeNode = this.next[n] as number;
      return n;
    }
    if (this.nodes === this.next.length) {
      const next = new Int32Array(this.next.length * 2);
      next.set(this.next);
      this.next = next;
      const list = new Int32Array(this.list.length * 2);
      list.set(this.list);
      this.list = list;
    }
    return this.nodes++;
  }
}

/**
 * An inverted index target → lists, kept up to date one list at a time, that answers overlaps
 * without comparing lists pairwise. Adding a list costs one look-up per target plus one step per
 * other list holding that target; each neighbour is linked once. Removing a list undoes exactly
 * that. Pure data structure: the engine fills it from the blob store, the simulator and the
 * benchmarks from their own lists.
 */
export class OverlapIndex implements TargetOverlaps {
  private readonly ids = new Map<string, number>();
  private readonly names: (string | undefined)[] = [];
  private readonly freeIds: number[] = [];
  private readonly holders = new HolderTable();
  private readonly keysOf = new Map<string, Float64Array>();
  private readonly links = new Map<string, Set<string>>();
  /** Per list id, the last `add` that met it: de-duplicates neighbours without a set per call. */
  private seenAt = new Int32Array(64);
  private epoch = 0;

  get size(): number {
    return this.keysOf.size;
  }

  has(digest: string): boolean {
    return this.keysOf.has(digest);
  }

  digests(): IterableIterator<string> {
    return this.keysOf.keys();
  }

  neighbours(digest: string): ReadonlySet<string> | undefined {
    // One look-up in the common case: a list with neighbours has a link set.
    return this.links.get(digest) ?? (this.keysOf.has(digest) ? NONE : undefined);
  }

  /** Adds the list stored under `digest`; a digest already known is left as it is (its content cannot differ). */
  add(digest: string, targets: Iterable<string>): void {
    if (this.keysOf.has(digest)) return;
    const keys = keysOfNames(targets);
    const id = this.idOf(digest);
    const epoch = ++this.epoch;
    this.seenAt[id] = epoch;
    let mine: Set<string> | undefined;
    const link = (other: number): void => {
      if (this.seenAt[other] === epoch) return;
      this.seenAt[other] = epoch;
      const otherDigest = this.names[other] as string;
      (mine ??= new Set()).add(otherDigest);
      let theirs = this.links.get(otherDigest);
      if (!theirs) {
        theirs = new Set();
        this.links.set(otherDigest, theirs);
      }
      theirs.add(digest);
    };
    for (const key of keys) this.holders.hold(key, id, link);
    if (mine) this.links.set(digest, mine);
    this.keysOf.set(digest, keys);
  }

  remove(digest: string): void {
    const keys = this.keysOf.get(digest);
    const id = this.ids.get(digest);
    if (!keys || id === undefined) return;
    this.keysOf.delete(digest);
    for (const key of keys) this.holders.release(key, id);
    for (const other of this.links.get(digest) ?? []) this.links.get(other)?.delete(digest);
    this.links.delete(digest);
    this.ids.delete(digest);
    this.names[id] = undefined;
    this.freeIds.push(id);
  }

  private idOf(digest: string): number {
    const id = this.freeIds.pop() ?? this.names.length;
    this.names[id] = digest;
    this.ids.set(digest, id);
    if (id >= this.seenAt.length) {
      const grown = new Int32Array(Math.max(this.seenAt.length * 2, id + 1));
      grown.set(this.seenAt);
      this.seenAt = grown;
    }
    this.seenAt[id] = 0;
    return id;
  }
}
