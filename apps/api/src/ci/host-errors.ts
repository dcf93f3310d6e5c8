import { GitHostError } from '@railyard/githost';
import { ApiError } from '../http/errors';

/** The local host's refusals as client errors; anything else (a damaged file, git failing) stays a fault. */
export const clientErrorOf = (err: unknown): unknown => {
  if (!(err instanceof GitHostError)) return err;
  switch (err.code) {
    case 'INVALID_INPUT':
      return new ApiError(400, 'VALIDATION_FAILED', `invalid request: ${err.message}`, [{ field: 'repo', message: err.message }]);
    case 'REPO_NOT_FOUND':
      return new ApiError(404, 'REPOSITORY_NOT_FOUND', err.message);
    case 'REVISION_NOT_FOUND':
      return new ApiError(404, 'COMMIT_NOT_FOUND', err.message);
    case 'LOCKED':
      return new ApiError(503, 'STATUS_STORE_BUSY', `${err.message}; retry shortly`, undefined, { 'Retry-After': '1' });
    default:
      return err;
  }
};

export const asClientError = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    throw clientErrorOf(err);
  }
};
