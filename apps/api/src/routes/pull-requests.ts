import { Router } from 'express';
import { getSubmittedPullRequestRequest, prActionRequest, submitPullRequestRequest } from '@railyard/api-schema';
import { explainFromState, queueIdOf, type QueueCommand, type RepoRef } from '@railyard/domain';
import { prResponse, prViewOf } from '@railyard/readmodels';
import type { CommandMeta } from '@railyard/eventstore';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { parseBody } from '../http/validate';
import { STORE_READ_HEADER } from '../readiness/store-reads';
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
    // Before the read below and the host's answer: with no projector, "no such queue" could be a lie.
    await commands.ensureWritable();
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

  postRoute(router, deps, '/getSubmittedPullRequest', 'read', async (raw, ctx) => {
    const { repo, targetBranch, pr } = parseBody(getSubmittedPullRequestRequest, raw);
    const queueId = queueIdOf(repo, targetBranch);
    // The PR's queue stream answers while the read models lag or nobody projects (docs/api.md, "Reads
    // while the read models lag"), through the same view the writes answer with.
    const fromStore = async () => {
      const state = await commands.state(repo, targetBranch);
      if (!state.exists) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      const entry = state.entries.get(pr.number);
      const explained = explainFromState(state, pr.number);
      if (!entry || !explained) throw new ApiError(404, 'PR_NOT_IN_QUEUE', `PR #${pr.number} was never submitted to this queue`);
      ctx.res.setHeader(STORE_READ_HEADER, 'event-store');
      return prResponse(prViewOf(queueId, entry), explained);
    };
    if (await deps.projection.readFromStore()) return fromStore();
    const view = await readModels.getPr(queueId, pr.number);
    if (view) return prResponse(view, await explainView(readModels, view));
    // A miss while the store holds events the models lack may only be the lag: the stream decides.
    if (await deps.projection.behind()) return fromStore();
    // Caught up now: the PR may have been applied between the miss and that check.
    const caughtUp = await readModels.getPr(queueId, pr.number);
    if (caughtUp) return prResponse(caughtUp, await explainView(readModels, caughtUp));
    if (!(await readModels.getQueue(queueId))) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
    throw new ApiError(404, 'PR_NOT_IN_QUEUE', `PR #${pr.number} was never submitted to this queue`);
  });

  return router;
};
