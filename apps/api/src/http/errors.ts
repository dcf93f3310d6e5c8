import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, type DomainErrorCode } from '@railyard/domain';
import { errorFields, type Logger } from '@railyard/observability';
import { RepoFactsUnavailable } from '@railyard/testhealth';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: { field: string; message: string }[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

const DOMAIN_STATUS: Record<DomainErrorCode, number> = {
  QUEUE_NOT_FOUND: 404,
  PR_NOT_FOUND: 404,
  PR_NOT_IN_QUEUE: 404,
  QUEUE_ALREADY_EXISTS: 409,
  QUEUE_NOT_EMPTY: 409,
  QUEUE_NOT_ACCEPTING_SUBMISSIONS: 409,
  MODE_CHANGE_IN_PROGRESS: 409,
  PR_NOT_OPEN: 409,
  PR_NOT_IN_ACTIVE_STATE: 409,
  PR_TESTS_NOT_RESTARTABLE: 409,
  INVALID_ARGUMENT: 400,
};

// body-parser marks its failures with `type`; these are the client's fault, not ours.
const BODY_ERRORS: Record<string, [number, string, string]> = {
  'entity.too.large': [413, 'PAYLOAD_TOO_LARGE', 'the request body is over the 20 MiB limit'],
  'entity.parse.failed': [400, 'MALFORMED_JSON', 'the request body is not valid JSON'],
  'encoding.unsupported': [415, 'UNSUPPORTED_ENCODING', 'the request body encoding is not supported'],
  'charset.unsupported': [415, 'UNSUPPORTED_CHARSET', 'the request body charset is not supported'],
  'request.aborted': [400, 'REQUEST_ABORTED', 'the request was aborted before its body arrived'],
  'request.size.invalid': [400, 'REQUEST_SIZE_INVALID', 'the request body did not match its Content-Length'],
};

export const toApiError = (err: unknown): ApiError | undefined => {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return new ApiError(DOMAIN_STATUS[err.code], err.code, err.message);
  // The repository's code host did not answer test health (docs/test-health.md): the client may try again.
  if (err instanceof RepoFactsUnavailable)
    return new ApiError(503, 'CODE_HOST_UNAVAILABLE', err.message, undefined, { 'Retry-After': '5' });
  const type = (err as { type?: unknown })?.type;
  if (typeof type === 'string' && BODY_ERRORS[type]) {
    const [status, code, message] = BODY_ERRORS[type];
    return new ApiError(status, code, message);
  }
  // Client errors raised inside express itself: a malformed %-escape in a path with parameters.
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return new ApiError(400, 'BAD_PATH', 'the request path is not valid');
  return undefined;
};

export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err, req, res, _next) => {
    const known = toApiError(err);
    if (known) {
      if (known.headers) res.set(known.headers);
      res
        .status(known.status)
        .json({ error: { code: known.code, message: known.message, ...(known.fields ? { fields: known.fields } : {}) } });
      return;
    }
    // A real fault: the client learns nothing of the internals, the log gets the details.
    logger.error('request failed', { path: req.path, requestId: res.locals.requestId, ...errorFields(err) });
    res.status(500).json({ error: { code: 'INTERNAL_ERROR', message: `internal error (request ${String(res.locals.requestId ?? '')})` } });
  };

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'ROUTE_NOT_FOUND', `no endpoint ${req.method} ${req.path}`));
};
