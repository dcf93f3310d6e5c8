import { commitTree } from '@railyard/githost';
import { checkPassed, requiredChecks } from '../checks-state';
import { GithubHttpError, notFound, unprocessable } from '../errors';
import { compareAndSwapRef, deleteRef, isAncestor, isValidRefTail, listRefs, listTree, objectType, readCommit, readRef } from '../git';
import { syncBranches } from '../lifecycle';
import type { FakeRepo } from '../model';
import { gitCommit } from '../representations/commits';
import { repoApiUrl } from '../representations/repos';
import { nodeId } from '../representations/urls';
import { ok, repoOf, type Handlers, type RouteContext } from './types';

/** Git data: references, commits and trees, straight from the bare repository. */

const gitRef = (ctx: RouteContext, repo: FakeRepo, ref: string, sha: string) => {
  const api = repoApiUrl(repo, ctx.core.view);
  return {
    ref,
    node_id: nodeId('REF', `${repo.id}:${ref}`),
    url: `${api}/git/${ref}`,
    object: { type: 'commit', sha, url: `${api}/git/commits/${sha}` },
  };
};

/** `heads/main` from the path, checked, as `refs/heads/main`. */
const fullRef = (ctx: RouteContext): string => {
  const tail = (ctx.params.ref as string).replace(/^refs\//, '');
  if (!isValidRefTail(tail)) throw notFound();
  return `refs/${tail}`;
};

/** Refuses what the branch's protection forbids to an App that is not a bypass actor. */
export const checkProtection = async (
  ctx: RouteContext,
  repo: FakeRepo,
  ref: string,
  sha: string | null,
  current: string,
): Promise<void> => {
  if (!ref.startsWith('refs/heads/') || repo.bypassAppIds.has(ctx.caller.app.id)) return;
  const branch = ref.slice('refs/heads/'.length);
  const { checks } = requiredChecks(repo, branch);
  if (!repo.protection.has(branch) && checks.length === 0) return;
  if (sha === null) throw unprocessable('Cannot delete this protected branch');
  if (!(await isAncestor(repo.gitDir, current, sha))) throw unprocessable('Cannot force-push to this branch');
  const missing = checks.find((check) => !checkPassed(ctx.core.state, repo.id, sha, check));
  if (missing) throw unprocessable(`Required status check "${missing.context}" is expected.`);
};

const commitSha = async (repo: FakeRepo, sha: unknown): Promise<string> => {
  if (typeof sha !== 'string' || (await objectType(repo.gitDir, sha)) !== 'commit') throw unprocessable('Object does not exist');
  return sha;
};

const gitDate = (iso: unknown, fallback: Date): string =>
  `${Math.floor((typeof iso === 'string' ? Date.parse(iso) : fallback.getTime()) / 1000)} +0000`;

export const gitDataHandlers: Handlers = {
  'git/get-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const ref = fullRef(ctx);
    const sha = await readRef(repo.gitDir, ref);
    if (sha === null) throw notFound();
    return ok(gitRef(ctx, repo, ref, sha));
  },

  'git/list-matching-refs': async (ctx) => {
    const repo = repoOf(ctx);
    const prefix = `refs/${(ctx.params.ref as string).replace(/^refs\//, '')}`;
    const refs = (await listRefs(repo.gitDir, 'refs/')).filter(({ ref }) => ref.startsWith(prefix));
    return ok(refs.map(({ ref, sha }) => gitRef(ctx, repo, ref, sha)));
  },

  'git/create-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const { ref, sha } = ctx.body as { ref: string; sha: string };
    if (!/^refs\/(heads|tags)\//.test(ref) || !isValidRefTail(ref.slice('refs/'.length)))
      throw unprocessable("Reference name must start with 'refs/' and have at least two slashes.");
    return ctx.core.withRepoLock(repo.id, async () => {
      const target = await commitSha(repo, sha);
      if (!(await compareAndSwapRef(repo.gitDir, ref, target, null))) throw unprocessable('Reference already exists');
      await syncBranches(ctx.core, repo, ctx.actor);
      return ok(gitRef(ctx, repo, ref, target), 201);
    });
  },

  'git/update-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const ref = fullRef(ctx);
    const { sha, force } = ctx.body as { sha: string; force?: boolean };
    if (ref.startsWith('refs/pull/')) throw unprocessable('Reference cannot be updated');
    return ctx.core.withRepoLock(repo.id, async () => {
      const current = await readRef(repo.gitDir, ref);
      if (current === null) throw unprocessable('Reference does not exist');
      const target = await commitSha(repo, sha);
      if (force !== true && !(await isAncestor(repo.gitDir, current, target))) throw unprocessable('Update is not a fast forward');
      await checkProtection(ctx, repo, ref, target, current);
      if (!(await compareAndSwapRef(repo.gitDir, ref, target, current))) throw unprocessable('Update is not a fast forward');
      await syncBranches(ctx.core, repo, ctx.actor);
      return ok(gitRef(ctx, repo, ref, target));
    });
  },

  'git/delete-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const ref = fullRef(ctx);
    if (ref.startsWith('refs/pull/')) throw unprocessable('Reference cannot be updated');
    return ctx.core.withRepoLock(repo.id, async () => {
      const current = await readRef(repo.gitDir, ref);
      if (current === null) throw unprocessable('Reference does not exist');
      await checkProtection(ctx, repo, ref, null, current);
      if (!(await deleteRef(repo.gitDir, ref, current))) throw unprocessable('Reference does not exist');
      await syncBranches(ctx.core, repo, ctx.actor);
      return { status: 204 };
    });
  },

  'git/get-commit': async (ctx) => {
    const repo = repoOf(ctx);
    const commit = await readCommit(repo.gitDir, ctx.params.commit_sha as string);
    if (commit === null) throw notFound();
    return ok(gitCommit(repo, commit, ctx.core.view));
  },

  'git/create-commit': async (ctx) => {
    const repo = repoOf(ctx);
    const body = ctx.body as {
      message: string;
      tree: string;
      parents?: string[];
      author?: { name: string; email: string; date?: string };
      committer?: { name: string; email: string; date?: string };
    };
    if ((await objectType(repo.gitDir, body.tree)) !== 'tree') throw unprocessable('Tree SHA does not exist');
    for (const parent of body.parents ?? []) {
      if ((await objectType(repo.gitDir, parent)) !== 'commit') throw unprocessable('Parent SHA does not exist or is not a commit object');
    }
    const now = ctx.core.state.now();
    const actor = { name: ctx.actor.login, email: ctx.actor.email };
    const author = body.author ?? actor;
    const committer = body.committer ?? author;
    const sha = await commitTree(repo.gitDir, {
      tree: body.tree,
      parents: body.parents ?? [],
      message: body.message,
      author: { name: author.name, email: author.email },
      committer: { name: committer.name, email: committer.email },
      authorDate: gitDate(body.author?.date, now),
      committerDate: gitDate(body.committer?.date ?? body.author?.date, now),
    });
    const commit = await readCommit(repo.gitDir, sha);
    if (commit === null) throw new GithubHttpError(500, 'Server Error');
    return ok(gitCommit(repo, commit, ctx.core.view), 201);
  },

  'git/get-tree': async (ctx) => {
    const repo = repoOf(ctx);
    const name = ctx.params.tree_sha as string;
    const type = await objectType(repo.gitDir, name);
    const treeish = type === 'tree' || type === 'commit' ? name : repo.knownBranches.get(name);
    if (treeish === undefined) throw notFound();
    const tree = (await readRef(repo.gitDir, `${treeish}^{tree}`)) as string;
    const recursive = ctx.query.has('recursive');
    const api = repoApiUrl(repo, ctx.core.view);
    const entries = await listTree(repo.gitDir, tree, recursive);
    return ok({
      sha: tree,
      url: `${api}/git/trees/${tree}`,
      tree: entries.map((e) => ({
        path: e.path,
        mode: e.mode,
        type: e.type,
        sha: e.sha,
        ...(e.size === undefined ? {} : { size: e.size }),
        url: `${api}/git/${e.type === 'tree' ? 'trees' : 'blobs'}/${e.sha}`,
      })),
      truncated: false,
    });
  },
};
