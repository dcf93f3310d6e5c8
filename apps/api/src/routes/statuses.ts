import { getCommitStatusesResponseSchema, setCommitStatusResponseSchema } from '@railyard/api-schema';
import { getCommitStatusesRequest, outcomeOfState, setCommitStatusRequest } from '@railyard/ci';
import { formatRepo, tokenReporter } from '@railyard/domain';
import type { CommitStatus } from '@railyard/githost';
import { asClientError } from '../ci/host-errors';
import type { CiOperationDeps } from '../ci/deps';
import { operationOf } from '../http/operation';
import { REPO, SHA } from '../openapi/examples';

const operation = operationOf<CiOperationDeps>();

/** GitHub's combined state: failure if any failed, success if all passed, else pending (also when none reported). */
const combinedState = (statuses: CommitStatus[]): 'failure' | 'success' | 'pending' => {
  const outcomes = statuses.map((s) => outcomeOfState(s.state));
  if (outcomes.includes('failed')) return 'failure';
  return outcomes.length > 0 && outcomes.every((o) => o === 'passed') ? 'success' : 'pending';
};

/**
 * Status intake for outside CI systems, and the matching read. A status lands in the same store the
 * local CI writes to, whose change notifications the engine listens to.
 */
export const statusOperations = [
  operation({
    method: 'post',
    path: '/v1/setCommitStatus',
    operationId: 'setCommitStatus',
    tag: 'Statuses',
    summary: 'Report a commit status, as an outside CI does',
    scope: 'write',
    request: {
      name: 'SetCommitStatusRequest',
      schema: setCommitStatusRequest,
      example: {
        repo: REPO,
        sha: SHA,
        context: 'jenkins/build',
        state: 'success',
        targetUrl: 'https://ci.example.org/job/9',
        description: 'passed',
      },
    },
    response: { description: 'The status as stored', body: { name: 'CommitStatusSet', schema: setCommitStatusResponseSchema } },
    errors: [404],
    handle: async ({ repo, sha, context, state, targetUrl, url, description }, { deps, actor }) => {
      const link = targetUrl ?? url;
      const status = await asClientError(async () => {
        await deps.ci.commits.assertCommit(repo, sha);
        return deps.ci.statuses.set(repo, sha, {
          context,
          state,
          ...(link ? { targetUrl: link } : {}),
          ...(description !== undefined ? { description } : {}),
          // The token that posted it: a queue may pin who reports a context (statusReporters).
          reporter: tokenReporter(actor),
        });
      });
      deps.logger.info('commit status set', { repo: formatRepo(repo), sha, context, state, token: actor });
      return { repo, sha, status };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/getCommitStatuses',
    operationId: 'getCommitStatuses',
    tag: 'Statuses',
    summary: "A commit's statuses and their combined state",
    scope: 'read',
    request: { name: 'GetCommitStatusesRequest', schema: getCommitStatusesRequest, example: { repo: REPO, sha: SHA } },
    response: { description: 'The statuses', body: { name: 'CommitStatuses', schema: getCommitStatusesResponseSchema } },
    errors: [404],
    handle: async ({ repo, sha }, { deps }) => {
      const statuses = await asClientError(async () => {
        await deps.ci.commits.assertCommit(repo, sha);
        return deps.ci.statuses.list(repo, sha);
      });
      return { repo, sha, state: combinedState(statuses), statuses };
    },
  }),
];
