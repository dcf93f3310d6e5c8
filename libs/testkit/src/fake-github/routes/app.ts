import { mintToken } from '../auth';
import { GithubHttpError, notFound } from '../errors';
import type { FakeInstallation } from '../model';
import { installation } from '../representations/apps';
import { integration } from '../representations/apps';
import { repository } from '../representations/repos';
import { ok, paginate, repoOf, type Handlers, type RouteContext } from './types';

/** The App's own endpoints (JWT) and the installation's repository list. */

const ownInstallation = (ctx: RouteContext): FakeInstallation => {
  const inst = ctx.core.state.installations.get(Number(ctx.params.installation_id));
  if (!inst || inst.appId !== ctx.caller.app.id) throw notFound();
  return inst;
};

export const appHandlers: Handlers = {
  'apps/get-authenticated': async (ctx) => ok(integration(ctx.caller.app, ctx.core.view)),

  'apps/list-installations': async (ctx) => {
    const all = [...ctx.core.state.installations.values()].filter((i) => i.appId === ctx.caller.app.id);
    const { page, headers } = paginate(ctx, all);
    return { status: 200, body: page.map((i) => installation(i, ctx.core.view)), headers };
  },

  'apps/get-installation': async (ctx) => ok(installation(ownInstallation(ctx), ctx.core.view)),

  'apps/create-installation-access-token': async (ctx) => {
    const inst = ownInstallation(ctx);
    if (inst.suspendedAt !== null) throw new GithubHttpError(403, 'This installation has been suspended');
    const { token, expiresAt } = mintToken(ctx.core.state, inst);
    return ok(
      {
        token,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: inst.permissions,
        repository_selection: inst.repositorySelection,
      },
      201,
    );
  },

  'apps/get-repo-installation': async (ctx) => {
    const inst = ctx.core.state.installationFor(ctx.caller.app.id, repoOf(ctx));
    if (!inst) throw notFound();
    return ok(installation(inst, ctx.core.view));
  },

  'apps/list-repos-accessible-to-installation': async (ctx) => {
    if (ctx.caller.kind !== 'installation') throw notFound();
    const repos = ctx.core.state.installationRepos(ctx.caller.installation);
    const { page, headers } = paginate(ctx, repos);
    return {
      status: 200,
      body: {
        total_count: repos.length,
        repository_selection: ctx.caller.installation.repositorySelection,
        repositories: page.map((r) => repository(r, ctx.core.view)),
      },
      headers,
    };
  },
};
