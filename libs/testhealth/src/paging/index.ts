export { PageQueryError, type PageQueryErrorCode } from './errors';
export { PAGE_SIZE, pageSizeOf, type PageSizeLimits } from './page-size';
export { compareKeys, type SortKey } from './sort-key';
export { decodePageToken, encodePageToken, scopeOf, type PageCursor } from './token';
export { pageInfoFor, type FetchedPage, type PageInfo } from './page-info';
export { paginate, type Page, type PageQuery, type PaginateOptions } from './paginate';
