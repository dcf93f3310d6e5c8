import { CommittedTail } from '../shared/committed-tail';

type ReadPage<T> = (after: bigint, max: number) => Promise<T[]>;

/** Readers catching up at once (the embedded server runs three projections) each keep theirs. */
const SLOTS = 4;

/**
 * Reading the log page by page over the network waits a round trip per page while the reader does
 * nothing, and then the reader works while the network does nothing. After a full page this fetches
 * the next one at once, so a reader catching up (a rebuild, a projector after a restart) folds one
 * page while the next is on its way. Only full pages are served from here: positions commit in
 * order, so a full page read earlier is exactly what a read now would return, while a short one
 * only says where the log ended back then.
 *
 * Readers woken by the same append ask for the same page at once (the embedded server's projections
 * move in step): a read already on its way, started after the last append this process was told of
 * (`generation`), answers them all, since it cannot miss anything they could know of.
 */
export class ReadAhead<T extends { position: bigint }> {
  private readonly pending = new Map<string, Promise<T[] | null>>();
  private readonly inFlight = new Map<string, { generation: number; page: Promise<T[]> }>();
  private readonly tail: CommittedTail<T>;

  constructor(
    private readonly read: ReadPage<T>,
    private readonly generation: () => number = () => 0,
  ) {
    this.tail = new CommittedTail(generation);
  }

  /** The rows this process has just committed after `after`: see CommittedTail. */
  offer(after: bigint, rows: T[]): void {
    this.tail.offer(after, rows);
  }

  page(after: bigint, max: number): Promise<T[]> {
    const generation = this.generation();
    const committed = this.tail.take(after, max);
    if (committed) return Promise.resolve(committed);
    const key = `${after}:${max}`;
    const shared = this.inFlight.get(key);
    if (shared && shared.generation === generation) return shared.page;
    const page = this.load(key, after, max);
    this.inFlight.set(key, { generation, page });
    const forget = (): void => {
      if (this.inFlight.get(key)?.page === page) this.inFlight.delete(key);
    };
    page.then(forget, forget);
    return page;
  }

  private async load(key: string, after: bigint, max: number): Promise<T[]> {
    const ahead = this.pending.get(key);
    this.pending.delete(key);
    const prefetched = ahead ? await ahead : null;
    const page = prefetched && prefetched.length === max ? prefetched : await this.read(after, max);
    const last = page[page.length - 1];
    if (last && page.length === max) this.fetch(last.position, max);
    return page;
  }

  private fetch(after: bigint, max: number): void {
    const oldest = this.pending.keys().next();
    if (this.pending.size >= SLOTS && !oldest.done) this.pending.delete(oldest.value);
    // A failed read ahead is forgotten: the reader's own read will meet (and report) the failure.
    this.pending.set(
      `${after}:${max}`,
      this.read(after, max).catch(() => null),
    );
  }
}
