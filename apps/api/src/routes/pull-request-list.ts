import { listPullRequestsRequest, listPullRequestsResponseSchema } from '@railyard/api-schema';
import { knownEntries, queueIdOf, type RepoRef } from '@railyard/domain';
import { pageOf, prSummary, prViewOf, type PrListPage, type PrListQuery } from '@railyard/readmodels';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { operationOf } from '../http/operation';
import { KEY, PR_SUMMARY } from '../openapi/examples';
import { STORE_READ_HEADER } from '../readiness/store-reads';

const DEFAULT_TAKE = 50;

/**
 * The cursor is the last PR number of the page, as Trunk's document wants a UUID: an RFC 9562
 * version 8 (vendor-specific) UUID, a fixed tag and then the number in its last twelve hex digits.
 */
const CURSOR_TAG = '7261696c-7961-8000-8000-';
export const cursorAfter = (prNumber: number): string => `${CURSOR_TAG}${prNumber.toString(16).padStart(12, '0')}`;
const afterCursor = (cursor: string): number => {
  const lower = cursor.toLowerCase();
  if (!lower.startsWith(CURSOR_TAG)) throw new ApiError(400, 'INVALID_CURSOR', 'cursor is not a nextCursor this server gave');
  return Number.parseInt(lower.slice(CURSOR_TAG.length), 16);
};

/** The PRs of the queue the stream's state keeps (active and recently closed, D250) in number order, while the read models lag. */
const pageFromStore = async (deps: ApiDeps, repo: RepoRef, branch: string, query: PrListQuery): Promise<PrListPage> => {
  const state = await deps.commands.read({ repo, branch });
  if (!state.exists) throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
  const queueId = queueIdOf(repo, branch);
  const entries = knownEntries(state).sort((a, b) => a.prNumber - b.prNumber);
  return pageOf(
    entries.map((e) => prViewOf(queueId, e)),
    query,
  );
};

const operation = operationOf<ApiDeps>();

export const pullRequestListOperations = [
  operation({
    method: 'post',
    path: '/v1/listPullRequests',
    operationId: 'listPullRequests',
    tag: 'Pull requests',
    summary: "A page of the queue's PRs, in any state",
    description:
      'In PR number order, so following `nextCursor` neither repeats nor skips a PR while they change. `state` filters by state (any case); `since` keeps the PRs that concluded (merged, failed, cancelled) at or after it.',
    scope: 'read',
    request: { name: 'ListPullRequestsRequest', schema: listPullRequestsRequest, example: { ...KEY, state: 'merged', take: 20 } },
    response: {
      description: 'One page',
      body: {
        name: 'PullRequestList',
        schema: listPullRequestsResponseSchema,
        example: {
          pullRequests: [{ ...PR_SUMMARY, state: 'merged' }],
          nextCursor: cursorAfter(12),
        },
      },
    },
    errors: [404],
    handle: async ({ repo, targetBranch, state, since, cursor, take }, { deps, res }) => {
      const queueId = queueIdOf(repo, targetBranch);
      const query: PrListQuery = {
        take: take ?? DEFAULT_TAKE,
        ...(state ? { state } : {}),
        // Stored times are UTC ISO strings: the bound is compared in the same form.
        ...(since ? { concludedSince: new Date(since).toISOString() } : {}),
        ...(cursor ? { afterPrNumber: afterCursor(cursor) } : {}),
      };
      // While the read models lag or nobody projects, the queue's stream answers, as for getQueue.
      const fromStore = () => {
        res.setHeader(STORE_READ_HEADER, 'event-store');
        return pageFromStore(deps, repo, targetBranch, query);
      };
      const pageOfModels = async (): Promise<PrListPage> => {
        if (await deps.readModels.getQueue(queueId)) return deps.readModels.listPrs(queueId, query);
        if (await deps.projection.behind()) return fromStore();
        throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      };
      const page = (await deps.projection.readFromStore()) ? await fromStore() : await pageOfModels();
      const last = page.prs[page.prs.length - 1];
      return { pullRequests: page.prs.map(prSummary), ...(page.more && last ? { nextCursor: cursorAfter(last.prNumber) } : {}) };
    },
  }),
];
