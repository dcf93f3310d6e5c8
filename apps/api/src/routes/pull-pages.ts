import { pullRequestPageSchema } from '@railyard/api-schema';
import { formatRepo, repoRefProblems } from '@railyard/domain';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { operationOf } from '../http/operation';
import { pathParam } from '../openapi/parameters';
import { validationError } from '../http/validate';

const operation = operationOf<ApiDeps>();

/**
 * A PR of the local host as JSON. It is what the `prUrl` of getMergeQueueTestingDetails points at,
 * shaped as GitHub's REST path with the host first.
 */
export const pullPageOperations = [
  operation({
    method: 'get',
    path: '/repos/{host}/{owner}/{name}/pulls/{number}',
    operationId: 'getLocalPullRequest',
    tag: 'CI pages',
    summary: 'A PR of the local git host (what testing details link to)',
    scope: 'read',
    parameters: [
      pathParam('host', 'the repository host', 'git.local'),
      pathParam('owner', 'the repository owner', 'acme'),
      pathParam('name', 'the repository name', 'widgets'),
      pathParam('number', 'the PR number', '12'),
    ],
    response: { description: 'The PR', body: { name: 'LocalPullRequest', schema: pullRequestPageSchema } },
    errors: [400, 404],
    handle: async (_input, { deps, req }) => {
      const { host, owner, name, number } = req.params as Record<string, string>;
      if (!/^[1-9]\d{0,9}$/.test(number ?? ''))
        throw new ApiError(400, 'VALIDATION_FAILED', 'the PR number must be a positive integer', [{ field: 'number', message: 'invalid' }]);
      const repo = { host: host ?? '', owner: owner ?? '', name: name ?? '' };
      const bad = repoRefProblems(repo).map(({ part, problem }) => ({ field: part, message: problem }));
      if (bad.length > 0) throw validationError(bad);
      const pr = await deps.gitHost.getPullRequest(repo, Number(number));
      if (!pr) throw new ApiError(404, 'PR_NOT_FOUND', `no PR #${number} in ${formatRepo(repo)}`);
      return pr;
    },
  }),
];
