import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { GitHostError } from '../errors';
import { formatRepo, repoDirOf } from './names';

/** The repository's git directory, or INVALID_INPUT for a name that could leave the root. */
export const repoDirOrThrow = (root: string, repo: RepoRef): string => {
  const gitDir = repoDirOf(root, repo);
  if (gitDir === null) throw new GitHostError('INVALID_INPUT', `not a valid repository name: ${JSON.stringify(formatRepo(repo))}`);
  return gitDir;
};

/** As repoDirOrThrow, and REPO_NOT_FOUND unless a repository is there. */
export const existingRepoDir = async (root: string, repo: RepoRef): Promise<string> => {
  const gitDir = repoDirOrThrow(root, repo);
  const exists = await fs.stat(path.join(gitDir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) throw new GitHostError('REPO_NOT_FOUND', `no repository ${formatRepo(repo)} under ${root}`);
  return gitDir;
};
