import { pageInfoFor, type PageInfo } from './page-info';
import { PAGE_SIZE, pageSizeOf, type PageSizeLimits } from './page-size';
import { compareKeys, type SortKey } from './sort-key';
import { decodePageToken, scopeOf, type PageCursor } from './token';

/** The request's page_query as the spec names it. */
export interface PageQuery {
  page_size?: number;
  page_token?: string;
}

export interface PaginateOptions {
  /** The request's filter (repo, status...). A token only works with the filter it was issued for. */
  filter?: unknown;
  pageSize?: PageSizeLimits;
}

export interface Page<T> {
  rows: T[];
  page: PageInfo;
}

/** Index of the first key greater than `key` (strict) or not less than it. */
function boundary(keys: readonly SortKey[], key: SortKey, strict: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(keys[mid] ?? [], key);
    if (c < 0 || (strict && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function startOf(cursor: PageCursor | undefined, keys: readonly SortKey[], size: number): number {
  if (!cursor) return 0;
  if (cursor.kind === 'after') return boundary(keys, cursor.key, true);
  if (cursor.kind === 'before') return Math.max(0, boundary(keys, cursor.key, false) - size);
  return keys.length === 0 ? 0 : keys.length - (keys.length % size || size);
}

/**
 * One page of an in-memory list sorted by `keyOf`. Keyset paging: a token remembers the key of a
 * boundary row, not an offset, so rows inserted or deleted between two requests never make a
 * client skip or repeat a row that was there when it started.
 * Throws PageQueryError for a bad page size or token; throws Error if rows are not strictly
 * sorted by key (a bug in the caller, not in the request).
 */
export function paginate<T>(
  sortedRows: readonly T[],
  pageQuery: PageQuery,
  keyOf: (row: T) => SortKey,
  secret: string | Buffer,
  options: PaginateOptions = {},
): Page<T> {
  const size = pageSizeOf(pageQuery.page_size, options.pageSize ?? PAGE_SIZE);
  const scope = scopeOf(options.filter);
  const cursor = pageQuery.page_token ? decodePageToken(pageQuery.page_token, secret, scope) : undefined;

  const keys = sortedRows.map(keyOf);
  for (let i = 1; i < keys.length; i += 1) {
    if (compareKeys(keys[i - 1] ?? [], keys[i] ?? []) >= 0) throw new Error(`paginate: rows are not strictly sorted by key at index ${i}`);
  }

  const start = startOf(cursor, keys, size);
  const rows = sortedRows.slice(start, start + size);
  const firstKey = keys[start];
  const lastKey = keys[start + rows.length - 1];
  const page = pageInfoFor(
    {
      totalRows: sortedRows.length,
      pageSize: size,
      start,
      rowCount: rows.length,
      scope,
      ...(rows.length > 0 && firstKey && lastKey ? { firstKey, lastKey } : {}),
    },
    secret,
  );
  return { rows, page };
}
