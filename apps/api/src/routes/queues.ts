import { Router } from 'express';
import { createQueueRequest, deleteQueueRequest, getQueueRequest, updateQueueRequest, type CreateQueueRequest } from '@railyard/api-schema';
import { explainFromState, queueIdOf, type Explanation, type QueueSettingsInput, type RepoRef } from '@railyard/domain';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { parseBody } from '../http/validate';
import { STORE_READ_HEADER } from '../readiness/store-reads';
import { JsonText } from '../http/json-text';
import { activePrViewsOfState, explainViews, getQueueResponse, queueEnvelope, queueResponse, queueViewOfState } from '@railyard/readmodels';
import { postRoute } from './route';

/** Splits a request into the queue settings and the fields that have their own events. */
const settingsOf = (body: Omit<CreateQueueRequest, 'repo' | 'targetBranch'> & { deleteRequiredStatuses?: boolean }): QueueSettingsInput => {
  const { state: _s, requiredStatuses: _r, deleteRequiredStatuses: _d, statusReporters: _w, ...settings } = body;
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
        statusReporters: body.statusReporters,
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
        statusReporters: body.statusReporters,
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

  postRoute(router, deps, '/getQueue', 'read', async (raw, ctx) => {
    const { repo, targetBranch } = parseBody(getQueueRequest, raw);
    const queueId = queueIdOf(repo, targetBranch);
    // While the read models lag or nobody projects, the queue's own stream answers (docs/api.md,
    // "Reads while the read models lag"): never "no such queue" or an empty list the store contradicts.
    const fromStore = async () => {
      const state = await commands.state(repo, targetBranch);
      if (!state.exists) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      ctx.res.setHeader(STORE_READ_HEADER, 'event-store');
      const prs = activePrViewsOfState(state);
      // Explained from the same state, as a write's answer is when the models lag.
      const explanations = prs.map((p) => explainFromState(state, p.prNumber) as Explanation);
      return getQueueResponse(queueViewOfState(state), prs, explanations);
    };
    if (await deps.projection.readFromStore()) return fromStore();
    // Written by the projection with the documents: sent as it is, no parse and no re-serialization.
    const answer = await readModels.getQueueAnswer(queueId);
    if (answer !== null) return new JsonText(answer);
    const view = await readModels.getQueue(queueId);
    if (!view) {
      if (await deps.projection.behind()) return fromStore();
      throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
    }
    const prs = await readModels.listActivePrs(queueId);
    return getQueueResponse(view, prs, await explainViews(readModels, view, prs));
  });

  return router;
};
