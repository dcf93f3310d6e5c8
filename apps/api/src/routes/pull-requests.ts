import {
  getSubmittedPullRequestRequest,
  prActionRequest,
  submitPullRequestRequest,
  submittedPullRequestSchema,
} from '@railyard/api-schema';
import { entryFromBranch, entryOf, explainFromState, formatRepo, queueIdOf, type QueueCommand, type RepoRef } from '@railyard/domain';
import { prResponse, prViewOf } from '@railyard/readmodels';
import type { CommandMeta } from '@railyard/eventstore';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { JsonText } from '../http/json-text';
import { operationOf } from '../http/operation';
import { PR, PR_KEY } from '../openapi/examples';
import { STORE_READ_HEADER } from '../readiness/store-reads';

const operation = operationOf<ApiDeps>();

/** Runs a PR command and answers with the entry as getSubmittedPullRequest would show it. */
const runAndShow = async (deps: ApiDeps, repo: RepoRef, branch: string, prNumber: number, command: QueueCommand, meta: CommandMeta) => {
  const { state } = await deps.commands.execute({ repo, branch }, command, meta);
  const queueId = queueIdOf(repo, branch);
  const shown = await deps.readModels.getPrAnswer(queueId, prNumber);
  if (shown !== null) return new JsonText(shown);
  const entry = entryOf(state, prNumber);
  const explained = explainFromState(state, prNumber);
  return entry && explained ? prResponse(prViewOf(queueId, entry), explained) : {};
};

/**
 * The number of the PR a head branch names in the queue (entryFromBranch), read from the queue's
 * stream: the write side's state keeps every entry in the queue and the recently closed ones (D250).
 */
const numberFromBranch = async (deps: ApiDeps, repo: RepoRef, targetBranch: string, branch: string): Promise<number> => {
  const state = await deps.commands.read({ repo, branch: targetBranch });
  if (!state.exists) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
  const entry = entryFromBranch(state, branch);
  if (!entry) throw new ApiError(404, 'PR_NOT_IN_QUEUE', `no PR from branch ${branch} was submitted to this queue`);
  return entry.prNumber;
};

const submitted = (description: string, example: unknown = PR) => ({
  description,
  body: { name: 'SubmittedPullRequest', schema: submittedPullRequestSchema, example },
});

/** Trunk's PR operations: submit, cancel, restart and read a PR in its queue. */
export const pullRequestOperations = [
  operation({
    method: 'post',
    path: '/v1/submitPullRequest',
    operationId: 'submitPullRequest',
    tag: 'Pull requests',
    summary: 'Submit a PR to its queue',
    description: 'Submitting a queued PR again updates its priority and noBatch in place.',
    scope: 'write',
    request: { name: 'SubmitPullRequestRequest', schema: submitPullRequestRequest, example: { ...PR_KEY, priority: 'high' } },
    response: submitted('The PR as getSubmittedPullRequest shows it'),
    errors: [404, 409],
    handle: async (body, ctx) => {
      const { commands, readModels, gitHost } = ctx.deps;
      const { repo, targetBranch } = body;
      // Before the read below and the host's answer: with no projector, "no such queue" could be a lie.
      await commands.ensureWritable();
      const queue = await readModels.getQueue(queueIdOf(repo, targetBranch));
      if (!queue) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      // Mergeability as far as the host knows it now: a submission never waits for a merge to be worked
      // out. When it is not known the PR waits not_ready (`unspecified`) until the engine learns it.
      const pr = await gitHost.getPullRequest(repo, body.pr.number, { mergeability: 'known' });
      if (!pr) throw new ApiError(404, 'PR_NOT_FOUND', `PR #${body.pr.number} does not exist in ${formatRepo(repo)}`);
      const command: QueueCommand = { type: 'SubmitPullRequest', pr, priority: body.priority ?? undefined, noBatch: body.noBatch };
      return runAndShow(ctx.deps, repo, targetBranch, pr.number, command, ctx);
    },
  }),
  operation({
    method: 'post',
    path: '/v1/cancelPullRequest',
    operationId: 'cancelPullRequest',
    tag: 'Pull requests',
    summary: 'Take a PR out of its queue',
    scope: 'write',
    request: { name: 'PullRequestKey', schema: prActionRequest, example: PR_KEY },
    response: submitted('The PR, cancelled', { ...PR, state: 'cancelled', isCurrentlySubmittedToQueue: false }),
    errors: [404, 409],
    handle: ({ repo, targetBranch, pr }, ctx) =>
      runAndShow(ctx.deps, repo, targetBranch, pr.number, { type: 'CancelPullRequest', prNumber: pr.number }, ctx),
  }),
  operation({
    method: 'post',
    path: '/v1/restartTestsOnPullRequest',
    operationId: 'restartTestsOnPullRequest',
    tag: 'Pull requests',
    summary: 'Test a queued PR again',
    scope: 'write',
    request: { name: 'PullRequestKey', schema: prActionRequest, example: PR_KEY },
    response: submitted('The PR'),
    errors: [404, 409],
    handle: ({ repo, targetBranch, pr }, ctx) =>
      runAndShow(ctx.deps, repo, targetBranch, pr.number, { type: 'RestartTestsOnPullRequest', prNumber: pr.number }, ctx),
  }),
  operation({
    method: 'post',
    path: '/v1/getSubmittedPullRequest',
    operationId: 'getSubmittedPullRequest',
    tag: 'Pull requests',
    summary: 'A submitted PR: its state, readiness and priority',
    description: '`pr` holds the number, or the head branch (the PR from it in the queue now, else the one that left it last).',
    scope: 'read',
    request: { name: 'SubmittedPullRequestKey', schema: getSubmittedPullRequestRequest, example: PR_KEY },
    response: submitted('The PR'),
    errors: [404],
    handle: async ({ repo, targetBranch, pr: ref }, { deps, res }) => {
      const { commands, readModels } = deps;
      const queueId = queueIdOf(repo, targetBranch);
      const pr = { number: ref.number ?? (await numberFromBranch(deps, repo, targetBranch, ref.branch as string)) };
      // The PR's queue stream answers while the read models lag or nobody projects (docs/api.md, "Reads
      // while the read models lag"), through the same view the writes answer with.
      const fromStore = async () => {
        const state = await commands.read({ repo, branch: targetBranch });
        if (!state.exists) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
        const entry = entryOf(state, pr.number);
        const explained = explainFromState(state, pr.number);
        if (!entry || !explained) throw new ApiError(404, 'PR_NOT_IN_QUEUE', `PR #${pr.number} was never submitted to this queue`);
        res.setHeader(STORE_READ_HEADER, 'event-store');
        return prResponse(prViewOf(queueId, entry), explained);
      };
      if (await deps.projection.readFromStore()) return fromStore();
      // Written by the projection with the documents for active PRs: sent as it is.
      const shown = await readModels.getPrAnswer(queueId, pr.number);
      if (shown !== null) return new JsonText(shown);
      // A miss while the store holds events the models lack may only be the lag: the stream decides.
      if (await deps.projection.behind()) return fromStore();
      // Caught up now: the PR may have been applied between the miss and that check.
      const caughtUp = await readModels.getPrAnswer(queueId, pr.number);
      if (caughtUp !== null) return new JsonText(caughtUp);
      if (!(await readModels.getQueue(queueId)))
        throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      throw new ApiError(404, 'PR_NOT_IN_QUEUE', `PR #${pr.number} was never submitted to this queue`);
    },
  }),
];
