/**
 * A rule the command broke. `code` is a stable UPPER_SNAKE name the API maps to an HTTP status;
 * the domain itself knows nothing of HTTP.
 */
export type DomainErrorCode =
  | 'QUEUE_NOT_FOUND'
  | 'QUEUE_ALREADY_EXISTS'
  | 'QUEUE_NOT_EMPTY'
  | 'QUEUE_NOT_ACCEPTING_SUBMISSIONS'
  | 'MODE_CHANGE_IN_PROGRESS'
  | 'PR_NOT_FOUND'
  | 'PR_NOT_IN_QUEUE'
  | 'PR_NOT_OPEN'
  | 'PR_NOT_IN_ACTIVE_STATE'
  | 'PR_TESTS_NOT_RESTARTABLE'
  | 'INVALID_ARGUMENT';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
