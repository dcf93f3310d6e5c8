import { GithubHttpError, notFound, unprocessable } from '../errors';
import { emitPullEvent } from '../lifecycle';
import type { FakePull } from '../model';
import { derivePull, baseShaOf } from '../pull-state';
import { pullRequest, pullRequestSimple } from '../representations/pulls';
import { ok, paginate, repoOf, type Handlers, type RouteContext } from './types';

const pullOf = (ctx: RouteContext): FakePull => {
  const pr = ctx.core.state.pull(repoOf(ctx).id, Number(ctx.params.pull_number));
  if (!pr) throw notFound();
  return pr;
};

const listFilter = (ctx: RouteContext) => {
  const state = ctx.query.get('state') ?? 'open';
  if (!['open', 'closed', 'all'].includes(state))
    throw unprocessable('Validation Failed', [{ resource: 'Search', field: 'state', code: 'invalid' }]);
  const head = ctx.query.get('head');
  const base = ctx.query.get('base');
  return (pr: FakePull) => {
    if (state !== 'all' && pr.state !== state) return false;
    if (base !== null && pr.baseRef !== base) return false;
    if (head !== null) {
      const headRepo = ctx.core.state.repo(pr.headRepoId);
      if (`${headRepo.owner.login}:${pr.headRef}`.toLowerCase() !== head.toLowerCase()) return false;
    }
    return true;
  };
};

export const pullHandlers: Handlers = {
  'pulls/list': async (ctx) => {
    const prs = ctx.core.state.pullsOf(repoOf(ctx).id).filter(listFilter(ctx));
    const direction = ctx.query.get('direction') ?? 'desc';
    prs.sort((a, b) => (direction === 'asc' ? a.number - b.number : b.number - a.number));
    const { page, headers } = paginate(ctx, prs);
    return { status: 200, body: page.map((pr) => pullRequestSimple(pr, baseShaOf(ctx.core, pr), ctx.core.view)), headers };
  },

  'pulls/get': async (ctx) => {
    const pr = pullOf(ctx);
    return ok(pullRequest(pr, await derivePull(ctx.core, pr, true), ctx.core.view));
  },

  'pulls/update': async (ctx) => {
    const repo = repoOf(ctx);
    const pr = pullOf(ctx);
    const { title, body, state, base } = ctx.body as { title?: string; body?: string; state?: 'open' | 'closed'; base?: string };
    const changes: Record<string, { from: string }> = {};
    if (base !== undefined && base !== pr.baseRef) {
      if (!repo.knownBranches.has(base))
        throw unprocessable('Validation Failed', [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
      changes.base = { from: pr.baseRef };
      pr.baseRef = base;
      pr.mergeability = null;
    }
    if (title !== undefined && title !== pr.title) {
      changes.title = { from: pr.title };
      pr.title = title;
    }
    if (body !== undefined && body !== pr.body) {
      changes.body = { from: pr.body ?? '' };
      pr.body = body;
    }
    pr.updatedAt = ctx.core.state.iso();
    if (Object.keys(changes).length > 0) await emitPullEvent(ctx.core, pr, 'edited', ctx.actor, { changes });
    if (state === 'closed' && pr.state === 'open') {
      Object.assign(pr, { state: 'closed', closedAt: pr.updatedAt, mergePending: null });
      await emitPullEvent(ctx.core, pr, 'closed', ctx.actor);
    } else if (state === 'open' && pr.state === 'closed') {
      if (pr.merged) throw new GithubHttpError(422, 'Cannot reopen a merged pull request');
      Object.assign(pr, { state: 'open', closedAt: null });
      await emitPullEvent(ctx.core, pr, 'reopened', ctx.actor);
    }
    return ok(pullRequest(pr, await derivePull(ctx.core, pr, true), ctx.core.view));
  },
};
