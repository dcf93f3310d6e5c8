import { GitHostError } from '../errors';
import type { RepoRef } from '@railyard/domain';
import { formatRepo, isObjectId, isValidRepoRef } from '../local/names';
import type { CommitStatusInput } from './port';

export const MAX_CONTEXT_LENGTH = 255;
export const MAX_TARGET_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 1024;
const STATES = ['pending', 'success', 'failure', 'error'];

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

const invalid = (message: string): GitHostError => new GitHostError('INVALID_INPUT', message);

/** Checks the sha (always) and the status (when given); answers the status without unknown fields. */
export function validateStatusInput(sha: string): undefined;
export function validateStatusInput(sha: string, input: CommitStatusInput): CommitStatusInput;
export function validateStatusInput(sha: string, input?: CommitStatusInput): CommitStatusInput | undefined {
  if (typeof sha !== 'string' || !isObjectId(sha))
    throw invalid(`sha must be a full lower-case commit id (40 or 64 hex digits), got ${JSON.stringify(sha)}`);
  if (input === undefined) return undefined;
  const { context, state, targetUrl, description, reporter } = input;
  if (typeof context !== 'string' || context.trim() === '' || context.length > MAX_CONTEXT_LENGTH || CONTROL.test(context))
    throw invalid(`context must be 1-${MAX_CONTEXT_LENGTH} characters without control characters`);
  if (!STATES.includes(state)) throw invalid(`state must be one of ${STATES.join(', ')}`);
  if (
    targetUrl !== undefined &&
    (typeof targetUrl !== 'string' || targetUrl.length > MAX_TARGET_URL_LENGTH || !/^https?:\/\/[^\s]+$/i.test(targetUrl))
  )
    throw invalid(`targetUrl must be an http(s) URL of at most ${MAX_TARGET_URL_LENGTH} characters`);
  if (description !== undefined && (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH))
    throw invalid(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  if (
    reporter !== undefined &&
    (typeof reporter !== 'string' || reporter === '' || reporter.length > MAX_CONTEXT_LENGTH || CONTROL.test(reporter))
  )
    throw invalid(`reporter must be 1-${MAX_CONTEXT_LENGTH} characters without control characters`);
  return {
    context,
    state,
    ...(targetUrl !== undefined ? { targetUrl } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(reporter !== undefined ? { reporter } : {}),
  };
}

/** A repository whose parts are not valid names is refused before it names a stream or a path. */
export const validateRepoName = (repo: RepoRef): void => {
  if (!isValidRepoRef(repo)) throw invalid(`not a valid repository name: ${JSON.stringify(formatRepo(repo))}`);
};
