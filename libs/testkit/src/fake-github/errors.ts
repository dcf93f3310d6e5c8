const DOCS = 'https://docs.github.com/rest';

/** An answer GitHub gives as an error: status, message and, for 422, the field errors. */
export class GithubHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly errors?: unknown[],
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      documentation_url: DOCS,
      status: String(this.status),
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

export const notFound = (): GithubHttpError => new GithubHttpError(404, 'Not Found');

export const unprocessable = (message: string, errors?: unknown[]): GithubHttpError => new GithubHttpError(422, message, {}, errors);
