import type { SortKey } from './sort-key';
import { encodePageToken } from './token';

/** The spec's Page information object. Tokens are '' when there is no such page. */
export interface PageInfo {
  total_rows: number;
  total_pages: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
  /** 1-based; 1 for the first page even when the list is empty. */
  page_index: number;
}

/** What a listing backend knows after fetching one page. */
export interface FetchedPage {
  totalRows: number;
  pageSize: number;
  /** 0-based position of the page's first row in the whole ordering (rows sorting before it). */
  start: number;
  /** Sort keys of the page's first and last rows; absent when the page is empty. */
  firstKey?: SortKey;
  lastKey?: SortKey;
  rowCount: number;
  scope: string;
}

/**
 * Page information for a fetched page, shared by the in-memory paginate and any store-backed
 * listing (which computes `start` with a count of keys below the first row).
 */
export function pageInfoFor(page: FetchedPage, secret: string | Buffer): PageInfo {
  const totalPages = Math.ceil(page.totalRows / page.pageSize);
  const pageIndex = Math.floor(page.start / page.pageSize) + 1;
  const last = page.totalRows > 0 ? encodePageToken({ kind: 'last', scope: page.scope }, secret) : '';
  const hasNext = page.lastKey !== undefined && page.start + page.rowCount < page.totalRows;
  let prev = '';
  if (page.start > 0) {
    // An empty page past the end (its rows were deleted) steps back to the real last page.
    prev =
      page.firstKey !== undefined
        ? encodePageToken({ kind: 'before', key: page.firstKey, index: Math.max(1, pageIndex - 1), scope: page.scope }, secret)
        : last;
  }
  return {
    total_rows: page.totalRows,
    total_pages: totalPages,
    next_page_token:
      hasNext && page.lastKey ? encodePageToken({ kind: 'after', key: page.lastKey, index: pageIndex + 1, scope: page.scope }, secret) : '',
    prev_page_token: prev,
    last_page_token: last,
    page_index: pageIndex,
  };
}
