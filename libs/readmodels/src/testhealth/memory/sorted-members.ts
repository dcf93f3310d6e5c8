/** Strings kept in byte order (the order Redis gives members of equal score), with rank queries. */
export class SortedMembers {
  private readonly items: string[] = [];

  /** Members already in byte order, as `toArray` gave them (a snapshot). */
  static of(sorted: readonly string[]): SortedMembers {
    const members = new SortedMembers();
    for (const m of sorted) members.items.push(m);
    return members;
  }

  toArray(): string[] {
    return [...this.items];
  }

  get size(): number {
    return this.items.length;
  }

  add(member: string): void {
    const i = this.lowerBound(member);
    if (this.items[i] !== member) this.items.splice(i, 0, member);
  }

  remove(member: string): void {
    const i = this.lowerBound(member);
    if (this.items[i] === member) this.items.splice(i, 1);
  }

  /** Members strictly before `member`. */
  countBelow(member: string): number {
    return this.lowerBound(member);
  }

  /** Members at or before `member`. */
  countAtOrBelow(member: string): number {
    const i = this.lowerBound(member);
    return this.items[i] === member ? i + 1 : i;
  }

  slice(start: number, count: number): string[] {
    return this.items.slice(start, start + count);
  }

  private lowerBound(member: string): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid] as string) < member) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
