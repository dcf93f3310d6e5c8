import { Router } from 'express';
import { getSubmittedPullRequestRequest, prActionRequest, submitPullRequestRequest } from '@railyard/api-schema';
import { explainFromState, queueIdOf, type QueueCommand, type RepoRef } from '@railyard/domain';
import { prResponse, prViewOf } from '@railyard/readmodels';
import type { CommandMeta } from '@railyard/eventstore';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { parseBody } from '../http/validate';
import { explainView } from '../explain';
import { postRoute } from './route';

export const pullRequestRoutes = (deps: ApiDeps): Router => {
  const router = Router();
  const { commands, readModels, gitHost } = deps;

  /** Runs a PR command and answers with the entry as getSubmittedPullRequest would show it. */
  const runAndShow = async (repo: RepoRef, branch: string, prNumber: number, command: QueueCommand, meta: CommandMeta) => {
    const { state } = await commands.execute(repo, branch, command, meta);
    const queueId = queueIdOf(repo, branch);
    const view = await readModels.getPr(queueId, prNumber);
    if (view) return prResponse(view, await explainView(readModels, view));
    const entry = state.entries.get(prNumber);
    const explained = explainFromState(state, prNumber);
    return entry && explained ? prResponse(prViewOf(queueId, entry), explained) : {};
  };

  postRoute(router, deps, '/submitPullRequest', 'write', async (raw, ctx) => {
    const body = parseBody(submitPullRequestRequest, raw);
    const { repo, targetBranch } = body;
    const queue = await readModels.getQueue(queueIdOf(repo, targetBranch));
    if (!queue) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
    // Mergeability as far as the host knows it now: a submission never waits for a merge to be worked
    // out. When it is not known the PR waits not_ready (`unspecified`) until the engine learns it.
    const pr = await gitHost.getPullRequest(repo, body.pr.number, { mergeability: 'known' });
    if (!pr) throw new ApiError(404, 'PR_NOT_FOUND', `PR #${body.pr.number} does not exist in ${repo.host}/${repo.owner}/${repo.name}`);
    const command: QueueCommand = { type: 'SubmitPullRequest', pr, priority: body.priority ?? undefined, noBatch: body.noBatch };
    return runAndShow(repo, targetBranch, pr.number, command, ctx);
  });

  postRoute(router, deps, '/cancelPullRequest', 'write', async (raw, ctx) => {
    const { repo, targetBranch, pr } = parseBody(prActionRequest, raw);
    return runAndShow(repo, targetBranch, pr.number, { type: 'CancelPullRequest', prNumber: pr.number }, ctx);
  });

  postRoute(router, deps, '/restartTestsOnPullRequest', 'write', async (raw, ctx) => {
    const { repo, targetBranch, pr } = parseBody(prActionRequest, raw);
    return runAndShow(repo, targetBranch, pr.number, { type: 'RestartTestsOnPullRequest', prNumber: pr.number }, ctx);
  });

  postRoute(router, deps, '/getSubmittedPullRequest', 'read', async (raw) => {
    const { repo, targetBranch, pr } = parseBody(getSubmittedPullRequestRequest, raw);
    const queueId = queueIdOf(repo, targetBranch);
    const view = await readModels.getPr(queueId, pr.number);
    if (view) return prResponse(view, await explainView(readModels, view));
    if (!(await readModels.getQueue(queueId))) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
    throw new ApiError(404, 'PR_NOT_IN_QUEUE', `PR #${pr.number} was never submitted to this queue`);
  });

  return router;
};
