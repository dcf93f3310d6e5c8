import type { RecordedEvent } from '../port';

type ReadPage = (after: bigint, max: number) => Promise<RecordedEvent[]>;

/** Readers catching up at once (the embedded server runs three projections) each keep theirs. */
const SLOTS = 4;

/**
 * Reading the log page by page over the network waits a round trip per page while the reader does
 * nothing, and then the reader works while the network does nothing. After a full page this fetches
 * the next one at once, so a reader catching up (a rebuild, a projector after a restart) folds one
 * page while the next is on its way. Only full pages are served from here: positions commit in
 * order, so a full page read earlier is exactly what a read now would return, while a short one
 * only says where the log ended back then.
 */
export class ReadAhead {
  private readonly pending = new Map<string, Promise<RecordedEvent[] | null>>();

  constructor(private readonly read: ReadPage) {}

  async page(after: bigint, max: number): Promise<RecordedEvent[]> {
    const key = `${after}:${max}`;
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
