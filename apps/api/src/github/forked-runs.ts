import type { RepoRef } from '@railyard/domain';
import { forkedRunVerifier, type ForkedRunVerdict } from '@railyard/github';
import type { GithubApiParts } from './index';

/** Confirms a workflow run of a PR (setImpactedTargets from a fork); see libs/github forkedRunVerifier. */
export type ForkedRuns = (repo: RepoRef, prNumber: number, runId: number) => Promise<ForkedRunVerdict>;

/** Runs of the configured GitHub's repositories only: another host's run cannot be looked up. */
export const forkedRunsOf = (parts: Pick<GithubApiParts, 'app' | 'host'>): ForkedRuns => {
  const verify = forkedRunVerifier(parts.app);
  return async (repo, prNumber, runId) =>
    repo.host.toLowerCase() === parts.host.toLowerCase()
      ? verify(repo, prNumber, runId)
      : { ok: false, why: `${repo.host} is not the GitHub this server is installed on (${parts.host})` };
};
