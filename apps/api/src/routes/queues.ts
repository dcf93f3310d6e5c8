import { Router } from 'express';
import { createQueueRequest, deleteQueueRequest, getQueueRequest, updateQueueRequest, type CreateQueueRequest } from '@railyard/api-schema';
import { queueIdOf, type QueueSettingsInput, type RepoRef } from '@railyard/domain';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { parseBody } from '../http/validate';
import { explainViews } from '../explain';
import { getQueueResponse, queueEnvelope, queueResponse, queueViewOfState } from '@railyard/readmodels';
import { postRoute } from './route';

/** Splits a request into the queue settings and the fields that have their own events. */
const settingsOf = (body: Omit<CreateQueueRequest, 'repo' | 'targetBranch'> & { deleteRequiredStatuses?: boolean }): QueueSettingsInput => {
  const { state: _s, requiredStatuses: _r, deleteRequiredStatuses: _d, ...settings } = body;
  return settings;
};

export const queueRoutes = (deps: ApiDeps): Router => {
  const router = Router();
  const { commands, readModels } = deps;

  const answerWithQueue = async (repo: RepoRef, branch: string) => {
    const view = (await readModels.getQueue(queueIdOf(repo, branch))) ?? queueViewOfState(await commands.state(repo, branch));
    return queueEnvelope(queueResponse(view));
  };

  postRoute(router, deps, '/createQueue', 'admin', async (raw, ctx) => {
    const body = parseBody(createQueueRequest, raw);
    const { repo, targetBranch } = body;
    await commands.execute(
      repo,
      targetBranch,
      {
        type: 'CreateQueue',
        queueId: queueIdOf(repo, targetBranch),
        repo,
        branch: targetBranch,
        settings: settingsOf(body),
        state: body.state,
        requiredStatuses: body.requiredStatuses,
      },
      ctx,
    );
    return answerWithQueue(repo, targetBranch);
  });

  postRoute(router, deps, '/updateQueue', 'admin', async (raw, ctx) => {
    const body = parseBody(updateQueueRequest, raw);
    const { repo, targetBranch } = body;
    await commands.execute(
      repo,
      targetBranch,
      {
        type: 'UpdateQueue',
        settings: settingsOf(body),
        state: body.state,
        requiredStatuses: body.requiredStatuses,
        deleteRequiredStatuses: body.deleteRequiredStatuses,
      },
      ctx,
    );
    return answerWithQueue(repo, targetBranch);
  });

  postRoute(router, deps, '/deleteQueue', 'admin', async (raw, ctx) => {
    const { repo, targetBranch } = parseBody(deleteQueueRequest, raw);
    await commands.execute(repo, targetBranch, { type: 'DeleteQueue' }, ctx);
    return {};
  });

  postRoute(router, deps, '/getQueue', 'read', async (raw) => {
    const { repo, targetBranch } = parseBody(getQueueRequest, raw);
    const queueId = queueIdOf(repo, targetBranch);
    const view = await readModels.getQueue(queueId);
    if (!view) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
    const prs = await readModels.listActivePrs(queueId);
    return getQueueResponse(view, prs, await explainViews(readModels, view, prs));
  });

  return router;
};
