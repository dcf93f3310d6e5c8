import type { CommitObject } from '../git';
import type { CheckRun, CheckSuite, FakePull } from '../model';
import { integration } from './apps';
import { simpleCommit } from './commits';
import { minimalRepository, repoApiUrl, repoHtmlUrl } from './repos';
import { nodeId } from './urls';
import type { View } from './view';

/** What a check run or suite says about the pull requests whose head is its commit. */
export const pullRefs = (pulls: FakePull[], view: View) =>
  pulls.map((pr) => {
    const base = view.state.repo(pr.repoId);
    const head = view.state.repo(pr.headRepoId);
    const side = (repoId: number, name: string, ref: string, sha: string) => ({
      ref,
      sha,
      repo: { id: repoId, url: repoApiUrl(view.state.repo(repoId), view), name },
    });
    return {
      id: pr.id,
      number: pr.number,
      url: `${repoApiUrl(base, view)}/pulls/${pr.number}`,
      head: side(head.id, head.name, pr.headRef, pr.headSha),
      base: side(base.id, base.name, pr.baseRef, base.knownBranches.get(pr.baseRef) ?? pr.headSha),
    };
  });

/** The conclusion of a suite: what its runs add up to once all completed. */
export const suiteOutcome = (runs: CheckRun[]): { status: CheckRun['status']; conclusion: string | null } => {
  if (runs.length === 0) return { status: 'queued', conclusion: null };
  if (runs.some((run) => run.status !== 'completed'))
    return { status: runs.some((r) => r.status === 'in_progress') ? 'in_progress' : 'queued', conclusion: null };
  const order = ['action_required', 'cancelled', 'timed_out', 'failure', 'neutral', 'success', 'skipped', 'stale'];
  const conclusions = runs.map((run) => run.conclusion ?? 'neutral');
  const worst = order.find((c) => conclusions.includes(c as never)) ?? 'success';
  return { status: 'completed', conclusion: worst === 'skipped' || worst === 'neutral' ? 'success' : worst };
};

export const checkSuite = (suite: CheckSuite, runs: CheckRun[], headCommit: CommitObject, pulls: FakePull[], view: View) => {
  const repo = view.state.repo(suite.repoId);
  const outcome = suiteOutcome(runs);
  const api = repoApiUrl(repo, view);
  return {
    id: suite.id,
    node_id: nodeId('CS', suite.id),
    head_branch: suite.headBranch,
    head_sha: suite.headSha,
    status: outcome.status,
    conclusion: outcome.conclusion,
    url: `${api}/check-suites/${suite.id}`,
    before: headCommit.parents[0] ?? null,
    after: suite.headSha,
    pull_requests: pullRefs(pulls, view),
    app: integration(view.state.app(suite.appId), view),
    repository: minimalRepository(repo, view),
    created_at: suite.createdAt,
    updated_at: suite.updatedAt,
    head_commit: simpleCommit(headCommit),
    latest_check_runs_count: runs.length,
    check_runs_url: `${api}/check-suites/${suite.id}/check-runs`,
    rerequestable: true,
    runs_rerequestable: true,
  };
};

export const checkRun = (run: CheckRun, pulls: FakePull[], view: View) => {
  const repo = view.state.repo(run.repoId);
  const api = repoApiUrl(repo, view);
  return {
    id: run.id,
    head_sha: run.headSha,
    node_id: nodeId('CR', run.id),
    external_id: run.externalId ?? '',
    url: `${api}/check-runs/${run.id}`,
    html_url: `${repoHtmlUrl(repo, view)}/runs/${run.id}`,
    details_url: run.detailsUrl ?? `${repoHtmlUrl(repo, view)}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: run.output.text,
      annotations_count: 0,
      annotations_url: `${api}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.suiteId },
    app: integration(view.state.app(run.appId), view),
    pull_requests: pullRefs(pulls, view),
  };
};
