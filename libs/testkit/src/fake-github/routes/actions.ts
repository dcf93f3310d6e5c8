import { pullsForSha } from '../check-actions';
import { notFound } from '../errors';
import { readCommit } from '../git';
import { workflowRun } from '../representations/actions';
import { ok, repoOf, type Handlers } from './types';

/** GitHub Actions: the workflow runs a test started (controls/ci.ts). */
export const actionHandlers: Handlers = {
  'actions/get-workflow-run': async (ctx) => {
    const repo = repoOf(ctx);
    const run = ctx.core.state.workflowRuns.get(Number(ctx.params.run_id));
    if (!run || run.repoId !== repo.id) throw notFound();
    const head = await readCommit(ctx.core.state.repo(run.headRepoId).gitDir, run.headSha);
    return ok(workflowRun(run, head, pullsForSha(ctx.core, repo, run.headSha), ctx.core.view));
  },
};
