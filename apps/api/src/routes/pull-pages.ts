import { Router } from 'express';
import { repoRefProblems } from '@railyard/domain';
import { requireToken } from '../auth/middleware';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { validationError } from '../http/validate';

/**
 * `GET /repos/<host>/<owner>/<name>/pulls/<number>`: a PR of the local host as JSON. It is what the
 * `prUrl` of getMergeQueueTestingDetails points at, shaped as GitHub's REST path with the host first.
 */
export const pullPageRoutes = (deps: ApiDeps): Router => {
  const router = Router();
  router.get('/repos/:host/:owner/:name/pulls/:number', requireToken(deps.tokens, 'read'), async (req, res) => {
    const { host, owner, name, number } = req.params as Record<string, string>;
    if (!/^[1-9]\d{0,9}$/.test(number ?? ''))
      throw new ApiError(400, 'VALIDATION_FAILED', 'the PR number must be a positive integer', [{ field: 'number', message: 'invalid' }]);
    const repo = { host: host ?? '', owner: owner ?? '', name: name ?? '' };
    const bad = repoRefProblems(repo).map(({ part, problem }) => ({ field: part, message: problem }));
    if (bad.length > 0) throw validationError(bad);
    const pr = await deps.gitHost.getPullRequest(repo, Number(number));
    if (!pr) throw new ApiError(404, 'PR_NOT_FOUND', `no PR #${number} in ${host}/${owner}/${name}`);
    res.status(200).json(pr);
  });
  return router;
};
