import type { PageCursor } from '@railyard/testhealth';
import { memberOfKey, type IndexName } from './indexes';

/** How a store finds a page: where it starts, given its index's size and rank queries. */
export interface RankSource {
  total: number;
  /** Members strictly before `member`. */
  countBelow(member: string): Promise<number> | number;
  /** Members at or before `member`. */
  countAtOrBelow(member: string): Promise<number> | number;
}

/**
 * The 0-based start of the page a cursor asks for (same rules as libs/testhealth paginate): after a
 * key, the rows following it; before a key, the `size` rows preceding it (the first page when fewer
 * precede it); last, the final partial or full page.
 */
export const pageStart = async (index: IndexName, size: number, cursor: PageCursor | undefined, source: RankSource): Promise<number> => {
  if (!cursor) return 0;
  if (cursor.kind === 'last') return source.total === 0 ? 0 : source.total - (source.total % size || size);
  const member = memberOfKey(index, cursor.key);
  if (member === null) return 0;
  if (cursor.kind === 'after') return source.countAtOrBelow(member);
  return Math.max(0, (await source.countBelow(member)) - size);
};
