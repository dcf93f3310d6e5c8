import type { RepoRef } from '@railyard/domain';
import { LocalGitAdmin, type OpenPullRequestInput, type PullRequestRecord } from '@railyard/githost';

/** Opens PR `number` from `head` (a branch or commit) into `base` (default main) on the local host under `root`. */
export const openPr = (
  root: string,
  input: Omit<OpenPullRequestInput, 'base' | 'repo'> & { repo: RepoRef; base?: string },
): Promise<PullRequestRecord> => new LocalGitAdmin({ root }).openPullRequest({ ...input, base: input.base ?? 'main' });
