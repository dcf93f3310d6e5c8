import * as path from 'node:path';
import { isValidRepoRef, type RepoRef } from '@railyard/domain';

// The rules themselves are the domain's (libs/domain/src/identifiers.ts), shared with the API's
// schemas; the git host re-exports them so that every caller asserts them where it touches disk.
export {
  formatRepo,
  isObjectId,
  isValidBranchName,
  isValidPrNumber,
  isValidRepoRef,
  isValidRepoSegment,
  parseRepoSpec,
} from '@railyard/domain';

/** The bare repository's directory under `root`, or null when a part of the name could leave the root. */
export const repoDirOf = (root: string, repo: RepoRef): string | null =>
  isValidRepoRef(repo) ? path.join(root, repo.host, repo.owner, `${repo.name}.git`) : null;
