import { Router } from 'express';
import { getCommitStatusesRequest, outcomeOfState, setCommitStatusRequest } from '@railyard/ci';
import { tokenReporter } from '@railyard/domain';
import type { CommitStatus } from '@railyard/githost';
import type { CiHttpDeps } from '../ci/deps';
import { asClientError } from '../ci/host-errors';
import type { ApiDeps } from '../deps';
import { parseBody } from '../http/validate';
import { postRoute } from './route';

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
export const statusRoutes = (deps: ApiDeps, ci: CiHttpDeps): Router => {
  const router = Router();

  postRoute(router, deps, '/setCommitStatus', 'write', async (raw, ctx) => {
    const { repo, sha, context, state, targetUrl, url, description } = parseBody(setCommitStatusRequest, raw);
    const link = targetUrl ?? url;
    const status = await asClientError(async () => {
      await ci.commits.assertCommit(repo, sha);
      return ci.statuses.set(repo, sha, {
        context,
        state,
        ...(link ? { targetUrl: link } : {}),
        ...(description !== undefined ? { description } : {}),
        // The token that posted it: a queue may pin who reports a context (statusReporters).
        reporter: tokenReporter(ctx.actor),
      });
    });
    deps.logger.info('commit status set', { repo: `${repo.host}/${repo.owner}/${repo.name}`, sha, context, state, token: ctx.actor });
    return { repo, sha, status };
  });

  postRoute(router, deps, '/getCommitStatuses', 'read', async (raw) => {
    const { repo, sha } = parseBody(getCommitStatusesRequest, raw);
    const statuses = await asClientError(async () => {
      await ci.commits.assertCommit(repo, sha);
      return ci.statuses.list(repo, sha);
    });
    return { repo, sha, state: combinedState(statuses), statuses };
  });

  return router;
};
