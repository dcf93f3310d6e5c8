import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import type { CommitStatus } from '@railyard/githost';
import { gitDirOf } from './git-repos';

/**
 * Writes a commit's statuses file as versions before statuses became events left it inside the bare
 * repository (docs/ci.md, "Status files from before D180"), for upgrade tests. `content` replaces
 * the JSON when a test wants a damaged file.
 */
export const writeOldStatusFile = async (
  root: string,
  repo: RepoRef,
  sha: string,
  statuses: CommitStatus[],
  content?: string,
): Promise<void> => {
  // The documented path, spelled out rather than asked of the code that reads it.
  const file = path.join(gitDirOf(root, repo), 'railyard', 'statuses', sha.slice(0, 2), `${sha}.json`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content ?? `${JSON.stringify({ version: 1, sha, statuses })}\n`);
};
