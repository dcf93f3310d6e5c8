import type { FakePull, WorkflowRun } from '../model';
import { simpleCommit } from './commits';
import { pullRefs } from './checks';
import { minimalRepository, repoApiUrl, repoHtmlUrl } from './repos';
import { simpleUser } from './users';
import { nodeId } from './urls';
import type { View } from './view';
import type { CommitObject } from '../git';

/**
 * GitHub's `workflow-run`. `pulls` are the base repository's open PRs whose head is the run's: GitHub
 * lists none for a run from a fork, whose head lives in another repository.
 */
export const workflowRun = (run: WorkflowRun, headCommit: CommitObject | null, pulls: FakePull[], view: View) => {
  const repo = view.state.repo(run.repoId);
  const url = `${repoApiUrl(repo, view)}/actions/runs/${run.id}`;
  const actor = simpleUser(run.actor, view.urls);
  return {
    id: run.id,
    name: run.name,
    node_id: nodeId('WFR', run.id),
    check_suite_id: run.id + 1,
    check_suite_node_id: nodeId('CS', run.id + 1),
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.path,
    display_title: run.name,
    run_number: run.runNumber,
    run_attempt: run.runAttempt,
    referenced_workflows: [],
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflowId,
    url,
    html_url: `${repoHtmlUrl(repo, view)}/actions/runs/${run.id}`,
    pull_requests: run.headRepoId === run.repoId ? pullRefs(pulls, view) : [],
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    actor,
    triggering_actor: actor,
    run_started_at: run.createdAt,
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${repoApiUrl(repo, view)}/check-suites/${run.id + 1}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: run.runAttempt > 1 ? `${url}/attempts/${run.runAttempt - 1}` : null,
    workflow_url: `${repoApiUrl(repo, view)}/actions/workflows/${run.workflowId}`,
    head_commit: headCommit ? simpleCommit(headCommit) : null,
    repository: minimalRepository(repo, view),
    head_repository: minimalRepository(view.state.repo(run.headRepoId), view),
    head_repository_id: run.headRepoId,
  };
};
