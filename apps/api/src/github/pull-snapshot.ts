import { hostMergeability, type PullRequestSnapshot, type RepoRef } from '@railyard/domain';
import type { GithubOctokit } from '@railyard/github';

interface PullJson {
  number: number;
  title: string;
  state: string;
  merged?: boolean | null;
  draft?: boolean;
  mergeable?: boolean | null;
  user: { login: string } | null;
  head: { sha: string; ref: string };
  base: { ref: string };
}

/** A pull request as a submission needs it, read from GitHub; null when GitHub does not know it. */
export const readPullSnapshot = async (octokit: GithubOctokit, repo: RepoRef, number: number): Promise<PullRequestSnapshot | null> => {
  try {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: repo.owner,
      repo: repo.name,
      pull_number: number,
    });
    const pr = data as unknown as PullJson;
    return {
      number: pr.number,
      title: pr.title,
      author: pr.user?.login ?? 'ghost',
      headSha: pr.head.sha,
      headBranch: pr.head.ref,
      baseBranch: pr.base.ref,
      state: pr.merged === true ? 'merged' : pr.state === 'closed' ? 'closed' : 'open',
      // The adapter's rule too (D147): a draft waits unspecified, it is no conflict.
      mergeability: hostMergeability({
        open: pr.merged !== true && pr.state !== 'closed',
        draft: pr.draft === true,
        mergeable: pr.mergeable ?? null,
      }),
    };
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
};

/** Roles that may move the queue from a comment: write access or more (GitHub answers `maintain` as `write`). */
const WRITERS = new Set(['admin', 'maintain', 'write']);

export const hasWriteAccess = async (octokit: GithubOctokit, repo: RepoRef, login: string): Promise<boolean> => {
  try {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', {
      owner: repo.owner,
      repo: repo.name,
      username: login,
    });
    return WRITERS.has(data.permission) || WRITERS.has((data as { role_name?: string }).role_name ?? '');
  } catch (err) {
    // Not a collaborator at all: GitHub answers 404 for some accounts.
    if ((err as { status?: number }).status === 404) return false;
    throw err;
  }
};
