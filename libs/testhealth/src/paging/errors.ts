/** A client mistake in page_query; the API answers 400 with the message. Codes are stable. */
export type PageQueryErrorCode = 'INVALID_PAGE_SIZE' | 'INVALID_PAGE_TOKEN' | 'PAGE_TOKEN_MISMATCH';

export class PageQueryError extends Error {
  constructor(
    readonly code: PageQueryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PageQueryError';
  }
}
