/** Stable reasons an adapter operation fails; callers branch on `code`, people read `message`. */
export type GitHostErrorCode =
  | 'INVALID_INPUT'
  | 'REPO_NOT_FOUND'
  | 'PR_NOT_FOUND'
  | 'PR_ALREADY_OPEN'
  | 'PR_MERGED'
  | 'PR_CLOSED'
  | 'BRANCH_NOT_FOUND'
  | 'REVISION_NOT_FOUND'
  | 'REF_EXISTS'
  | 'REF_MOVED'
  | 'LOCKED'
  | 'CORRUPT_PR_FILE'
  | 'CORRUPT_STATUS_FILE'
  | 'GIT_FAILED';

export class GitHostError extends Error {
  override readonly name = 'GitHostError';
  constructor(
    readonly code: GitHostErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const isGitHostError = (err: unknown, code?: GitHostErrorCode): err is GitHostError =>
  err instanceof GitHostError && (code === undefined || err.code === code);
