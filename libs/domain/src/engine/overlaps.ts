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
 * An inverted index target → lists, kept up to date one list at a time, that answers overlaps
 * without comparing lists pairwise. Adding a list costs one look-up per target plus one link per
 * other list holding that target; removing it undoes exactly that. Target names are interned, so a
 * name held by many lists is stored once. Pure data structure: the engine fills it from the blob
 * store, the simulator and the benchmarks from their own lists.
 */
export class OverlapIndex implements TargetOverlaps {
  private readonly nameIds = new Map<string, number>();
  private readonly names: (string | undefined)[] = [];
  private readonly freeIds: number[] = [];
  /** Target id → digests of the lists holding it. */
  private readonly holders = new Map<number, string[]>();
  private readonly targetsOf = new Map<string, Uint32Array>();
  private readonly links = new Map<string, Set<string>>();

  get size(): number {
    return this.targetsOf.size;
  }

  has(digest: string): boolean {
    return this.targetsOf.has(digest);
  }

  digests(): IterableIterator<string> {
    return this.targetsOf.keys();
  }

  neighbours(digest: string): ReadonlySet<string> | undefined {
    if (!this.targetsOf.has(digest)) return undefined;
    return this.links.get(digest) ?? NONE;
  }

  /** Adds the list stored under `digest`; a digest already known is left as it is (its content cannot differ). */
  add(digest: string, targets: Iterable<string>): void {
    if (this.targetsOf.has(digest)) return;
    const ids: number[] = [];
    const seen = new Set<number>();
    for (const name of targets) {
      const id = this.intern(name);
      if (seen.has(id)) continue;
      seen.add(id);
      ids.push(id);
    }
    let mine = this.links.get(digest);
    for (const id of ids) {
      const list = this.holders.get(id);
      if (!list) {
        this.holders.set(id, [digest]);
        continue;
      }
      for (const other of list) {
        if (mine?.has(other)) continue;
        mine ??= new Set();
        mine.add(other);
        let theirs = this.links.get(other);
        if (!theirs) {
          theirs = new Set();
          this.links.set(other, theirs);
        }
        theirs.add(digest);
      }
      list.push(digest);
    }
    if (mine) this.links.set(digest, mine);
    this.targetsOf.set(digest, Uint32Array.from(ids));
  }

  remove(digest: string): void {
    const ids = this.targetsOf.get(digest);
    if (!ids) return;
    this.targetsOf.delete(digest);
    for (const id of ids) {
      const list = this.holders.get(id);
      if (!list) continue;
      const at = list.indexOf(digest);
      if (at >= 0) {
        list[at] = list[list.length - 1] as string;
        list.pop();
      }
      if (list.length === 0) this.release(id);
    }
    for (const other of this.links.get(digest) ?? []) this.links.get(other)?.delete(digest);
    this.links.delete(digest);
  }

  private intern(name: string): number {
    const known = this.nameIds.get(name);
    if (known !== undefined) return known;
    const id = this.freeIds.pop() ?? this.names.length;
    this.names[id] = name;
    this.nameIds.set(name, id);
    return id;
  }

  private release(id: number): void {
    this.holders.delete(id);
    const name = this.names[id];
    if (name !== undefined) this.nameIds.delete(name);
    this.names[id] = undefined;
    this.freeIds.push(id);
  }
}
