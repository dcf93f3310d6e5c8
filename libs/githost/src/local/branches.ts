import { GitHostError } from '../errors';
import { runGit } from './git-helper';
import { isObjectId, isValidBranchName } from './names';
import type { RefReader } from './refs';

const branchRef = (branch: string): string => {
  if (!isValidBranchName(branch)) throw new GitHostError('INVALID_INPUT', `not a valid branch name: ${JSON.stringify(branch)}`);
  return `refs/heads/${branch}`;
};

const commitId = (sha: string, what: string): string => {
  if (!isObjectId(sha)) throw new GitHostError('INVALID_INPUT', `${what} must be a full commit id, got ${JSON.stringify(sha)}`);
  return sha;
};

/**
 * Points `branch` at `newSha` only if it still points at `expectedOldSha` (null: only if it does not
 * exist yet). git checks and writes under the ref's lock, so a push that lands in between makes this
 * fail with REF_MOVED instead of being overwritten.
 */
export const moveBranch = async (
  gitDir: string,
  refs: RefReader,
  branch: string,
  newSha: string,
  expectedOldSha: string | null,
): Promise<void> => {
  const ref = branchRef(branch);
  const oldValue = expectedOldSha === null ? '' : commitId(expectedOldSha, 'expectedOldSha');
  const { code, stderr } = await runGit(gitDir, ['update-ref', ref, commitId(newSha, 'newSha'), oldValue], { okCodes: [128] });
  if (code !== 0) await explainRefFailure(gitDir, refs, ref, expectedOldSha, stderr);
};

/**
 * Deletes `branch` if it points at `expectedOldSha` (or, without one, at whatever it points at now).
 * False when there was no such branch, so cleaning up twice is harmless.
 */
export const deleteBranch = async (gitDir: string, refs: RefReader, branch: string, expectedOldSha?: string): Promise<boolean> => {
  const ref = branchRef(branch);
  const current = await refs.read(gitDir, ref);
  if (current === null) return false;
  const expected = expectedOldSha === undefined ? current : commitId(expectedOldSha, 'expectedOldSha');
  // update-ref -d reports a failed check with 1 where an update reports 128.
  const { code, stderr } = await runGit(gitDir, ['update-ref', '-d', ref, expected], { okCodes: [1, 128] });
  if (code !== 0) await explainRefFailure(gitDir, refs, ref, expected, stderr);
  return true;
};

const explainRefFailure = async (gitDir: string, refs: RefReader, ref: string, expected: string | null, stderr: string): Promise<never> => {
  const actual = await refs.read(gitDir, ref);
  if (actual !== expected) {
    throw new GitHostError(
      'REF_MOVED',
      `${ref} is at ${actual ?? '(no such ref)'}, expected ${expected ?? '(no such ref)'}: someone else moved it`,
    );
  }
  if (/File exists/.test(stderr)) throw new GitHostError('LOCKED', `${ref} is locked by another writer: ${stderr.trim()}`);
  throw new GitHostError('GIT_FAILED', `could not update ${ref}: ${stderr.trim()}`);
};
