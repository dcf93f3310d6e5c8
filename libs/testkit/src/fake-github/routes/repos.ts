import { GithubHttpError, notFound } from '../errors';
import { readCommit } from '../git';
import type { ClassicProtection, FakeRepo } from '../model';
import { repoCommit } from '../representations/commits';
import { fullRepository, repoApiUrl, repoHtmlUrl } from '../representations/repos';
import { simpleUser } from '../representations/users';
import { ok, repoOf, type Handlers, type RouteContext } from './types';

/** Repository facts: the repository, a branch with its protection, branch rules, collaborator permissions. */

const ROLE_PERMISSION = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read' } as const;

const requiredStatusChecks = (ctx: RouteContext, repo: FakeRepo, branch: string, protection: ClassicProtection) => {
  const url = `${repoApiUrl(repo, ctx.core.view)}/branches/${encodeURIComponent(branch)}/protection/required_status_checks`;
  return {
    url,
    strict: protection.strict,
    contexts: protection.contexts,
    checks: protection.contexts.map((context) => ({ context, app_id: null })),
    contexts_url: `${url}/contexts`,
  };
};

const protectionOf = (ctx: RouteContext): { repo: FakeRepo; branch: string; protection: ClassicProtection } => {
  const repo = repoOf(ctx);
  const branch = ctx.params.branch as string;
  if (!repo.knownBranches.has(branch)) throw new GithubHttpError(404, 'Branch not found');
  const protection = repo.protection.get(branch);
  if (!protection) throw new GithubHttpError(404, 'Branch not protected');
  return { repo, branch, protection };
};

export const repoHandlers: Handlers = {
  'repos/get': async (ctx) => ok(fullRepository(repoOf(ctx), ctx.core.view)),

  'repos/get-branch': async (ctx) => {
    const repo = repoOf(ctx);
    const branch = ctx.params.branch as string;
    const sha = repo.knownBranches.get(branch);
    const commit = sha === undefined ? null : await readCommit(repo.gitDir, sha);
    if (commit === null) throw new GithubHttpError(404, 'Branch not found');
    const api = `${repoApiUrl(repo, ctx.core.view)}/branches/${encodeURIComponent(branch)}`;
    const protection = repo.protection.get(branch);
    return ok({
      name: branch,
      commit: repoCommit(repo, commit, ctx.core.view),
      _links: { self: api, html: `${repoHtmlUrl(repo, ctx.core.view)}/tree/${branch}` },
      protected: protection !== undefined,
      // Readable with contents access alone: how an App without administration rights learns the required contexts.
      protection: {
        enabled: protection !== undefined,
        required_status_checks: {
          enforcement_level: protection ? 'non_admins' : 'off',
          contexts: protection?.contexts ?? [],
          checks: (protection?.contexts ?? []).map((context) => ({ context, app_id: null })),
        },
      },
      protection_url: `${api}/protection`,
    });
  },

  'repos/get-branch-rules': async (ctx) => {
    const repo = repoOf(ctx);
    const branch = ctx.params.branch as string;
    const rules = repo.rulesets
      .filter((ruleset) => ruleset.branches.includes(branch) && ruleset.requiredChecks.length > 0)
      .map((ruleset) => ({
        type: 'required_status_checks',
        parameters: {
          strict_required_status_checks_policy: ruleset.strict,
          required_status_checks: ruleset.requiredChecks.map((c) => ({
            context: c.context,
            ...(c.integrationId === undefined ? {} : { integration_id: c.integrationId }),
          })),
        },
        ruleset_source_type: 'Repository',
        ruleset_source: `${repo.owner.login}/${repo.name}`,
        ruleset_id: ruleset.id,
      }));
    return ok(rules);
  },

  'repos/get-branch-protection': async (ctx) => {
    const { repo, branch, protection } = protectionOf(ctx);
    const url = `${repoApiUrl(repo, ctx.core.view)}/branches/${encodeURIComponent(branch)}/protection`;
    return ok({
      url,
      required_status_checks: { ...requiredStatusChecks(ctx, repo, branch, protection), enforcement_level: 'non_admins' },
      enforce_admins: { url: `${url}/enforce_admins`, enabled: false },
      required_linear_history: { enabled: false },
      allow_force_pushes: { enabled: false },
      allow_deletions: { enabled: false },
    });
  },

  'repos/get-status-checks-protection': async (ctx) => {
    const { repo, branch, protection } = protectionOf(ctx);
    return ok(requiredStatusChecks(ctx, repo, branch, protection));
  },

  'repos/get-collaborator-permission-level': async (ctx) => {
    const repo = repoOf(ctx);
    const login = ctx.params.username as string;
    const user = ctx.core.state.users.get(login.toLowerCase());
    if (!user) throw notFound();
    const role = user.id === repo.owner.id ? 'admin' : repo.collaborators.get(user.login);
    const permission = role === undefined ? (repo.private ? 'none' : 'read') : ROLE_PERMISSION[role];
    const roleName = role ?? (repo.private ? 'none' : 'read');
    return ok({
      permission,
      role_name: roleName,
      user: { ...simpleUser(user, ctx.core.view.urls), role_name: roleName },
    });
  },
};
