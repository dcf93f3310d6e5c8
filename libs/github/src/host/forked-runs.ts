import { type RepoRef, repoSlug } from '@railyard/domain';
import type { GithubApp } from '../github-app';
import { orNullOn404, RepoClients } from './repo-client';

/** What GitHub says of a workflow run claimed for a PR: its head when it is that PR's run, else why not. */
export type ForkedRunVerdict = { ok: true; headSha: string } | { ok: false; why: string };

const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_target']);

interface RunJson {
  event: string;
  head_sha: string;
  head_branch: string | null;
  head_repository: { full_name: string } | null;
  pull_requests: { number: number }[] | null;
}

interface PullJson {
  state: string;
  head: { sha: string; ref: string; repo: { full_name: string } | null };
}

/**
 * Confirms that workflow run `runId` of `repo` ran for PR `prNumber` as the PR is now: a
 * pull-request run of the repository whose head is the PR's head commit, and the PR's own run
 * (GitHub lists the PR on the run, or, for a PR from a fork, where it lists none, the run's head
 * repository and branch are the PR's). A PR from a fork gets no token in its workflows; this run is
 * what vouches for its upload instead (docs/api.md, "Forked PRs").
 */
export const forkedRunVerifier = (app: GithubApp) => {
  const clients = new RepoClients(app);
  return async (repo: RepoRef, prNumber: number, runId: number): Promise<ForkedRunVerdict> => {
    const octokit = await clients.of(repo);
    const params = { owner: repo.owner, repo: repo.name };
    const [run, pull] = await Promise.all([
      orNullOn404(octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', { ...params, run_id: runId })),
      orNullOn404(octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...params, pull_number: prNumber })),
    ]);
    if (!run) return { ok: false, why: `${repoSlug(repo)} has no workflow run ${runId}` };
    if (!pull) return { ok: false, why: `${repoSlug(repo)} has no PR #${prNumber}` };
    const r = run.data as unknown as RunJson;
    const p = pull.data as unknown as PullJson;
    if (p.state !== 'open') return { ok: false, why: `PR #${prNumber} is not open` };
    if (!PULL_REQUEST_EVENTS.has(r.event)) return { ok: false, why: `run ${runId} was started by ${r.event}, not by a pull request` };
    if (r.head_sha !== p.head.sha) return { ok: false, why: `run ${runId} ran ${r.head_sha}; PR #${prNumber} is at ${p.head.sha}` };
    const listed = (r.pull_requests ?? []).some((listedPr) => listedPr.number === prNumber);
    const sameHead = !!p.head.repo && r.head_repository?.full_name === p.head.repo.full_name && r.head_branch === p.head.ref;
    if (!listed && !sameHead) return { ok: false, why: `run ${runId} is not a run of PR #${prNumber}` };
    return { ok: true, headSha: p.head.sha };
  };
};
export type ForkedRunVerify = ReturnType<typeof forkedRunVerifier>;
