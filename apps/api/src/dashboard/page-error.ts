import type { SafeHtml } from './html';

/** A page's refusal: rendered as an error page with this status (404 no such thing, 400 a bad form, 403 scope). */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a form action shows instead of going elsewhere (a secret that is shown only once). */
export interface Shown {
  title: string;
  body: SafeHtml;
}
