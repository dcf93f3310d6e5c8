/**
 * The rows this process has just committed, for the readers that had delivered everything up to just
 * before them (docs/decisions.md D43, D48). Positions are assigned under the store's append lock, so
 * the committed rows follow `after` with nothing between: until anything else is signalled
 * (`generation` moves with every append this process is told of, its own and other processes'), a
 * read after `after` would return exactly them. The rows stay as the log's text, so each reader
 * parses its own and no two readers ever share an object.
 */
export class CommittedTail<T> {
  private tail: { after: bigint; rows: T[]; generation: number } | null = null;

  constructor(private readonly generation: () => number) {}

  /** Called after the commit has been signalled, so the generation is the one the woken readers see. */
  offer(after: bigint, rows: T[]): void {
    this.tail = rows.length > 0 ? { after, rows, generation: this.generation() } : null;
  }

  /** The offered rows when they are what a read of `max` rows after `after` returns now; null when a read must tell. */
  take(after: bigint, max: number): T[] | null {
    const tail = this.tail;
    if (tail === null || tail.after !== after || tail.generation !== this.generation()) return null;
    return tail.rows.length <= max ? tail.rows : tail.rows.slice(0, max);
  }
}
