import { commitTree, mergeTree } from '@railyard/githost';
import { GithubHttpError, notFound } from '../errors';
import {
  commitsBetween,
  compareAndSwapRef,
  countCommitsBetween,
  entryAt,
  fileChanges,
  isAncestor,
  listTree,
  mergeBase,
  readBlob,
  readCommit,
  resolveCommitish,
  type CommitObject,
} from '../git';
import { syncBranches } from '../lifecycle';
import type { FakeRepo } from '../model';
import { commitFiles, repoCommit } from '../representations/commits';
import { repoApiUrl, repoHtmlUrl } from '../representations/repos';
import { checkProtection } from './git-data';
import { ok, repoOf, type Handlers, type RouteContext } from './types';

/** Merging (the merges API), comparing two commits, and reading files at a ref. */

// GitHub lists at most this many commits in a comparison.
const COMPARE_COMMITS_LIMIT = 250;

const commitView = async (ctx: RouteContext, repo: FakeRepo, sha: string) => {
  const commit = await readCommit(repo.gitDir, sha);
  if (commit === null) throw notFound();
  return repoCommit(repo, commit, ctx.core.view);
};

const contentEntry = (
  ctx: RouteContext,
  repo: FakeRepo,
  ref: string,
  entry: { path: string; sha: string; type: string; size?: number },
) => {
  const api = repoApiUrl(repo, ctx.core.view);
  const html = repoHtmlUrl(repo, ctx.core.view);
  const isDir = entry.type === 'tree';
  const url = `${api}/contents/${entry.path}?ref=${encodeURIComponent(ref)}`;
  const gitUrl = `${api}/git/${isDir ? 'trees' : 'blobs'}/${entry.sha}`;
  const htmlUrl = `${html}/${isDir ? 'tree' : 'blob'}/${encodeURIComponent(ref)}/${entry.path}`;
  return {
    type: isDir ? 'dir' : 'file',
    size: entry.size ?? 0,
    name: entry.path.split('/').pop() as string,
    path: entry.path,
    sha: entry.sha,
    url,
    git_url: gitUrl,
    html_url: htmlUrl,
    download_url: isDir ? null : `${ctx.core.view.urls.html}/raw/${repo.owner.login}/${repo.name}/${encodeURIComponent(ref)}/${entry.path}`,
    _links: { self: url, git: gitUrl, html: htmlUrl },
  };
};

export const mergeHandlers: Handlers = {
  'repos/merge': async (ctx) => {
    const repo = repoOf(ctx);
    const { base, head, commit_message: message } = ctx.body as { base: string; head: string; commit_message?: string };
    return ctx.core.withRepoLock(repo.id, async () => {
      const baseSha = repo.knownBranches.get(base);
      if (baseSha === undefined) throw new GithubHttpError(404, 'Base does not exist');
      const headSha = await resolveCommitish(repo.gitDir, head);
      if (headSha === null) throw new GithubHttpError(404, 'Head does not exist');
      if (await isAncestor(repo.gitDir, headSha, baseSha)) return { status: 204 };
      const merged = await mergeTree(repo.gitDir, baseSha, headSha);
      if (!merged.clean) throw new GithubHttpError(409, 'Merge conflict');
      const sha = await commitTree(repo.gitDir, {
        tree: merged.tree,
        parents: [baseSha, headSha],
        message: message ?? `Merge ${head} into ${base}`,
        author: { name: ctx.actor.login, email: ctx.actor.email },
        committer: { name: 'GitHub', email: 'noreply@github.com' },
      });
      await checkProtection(ctx, repo, `refs/heads/${base}`, sha, baseSha);
      if (!(await compareAndSwapRef(repo.gitDir, `refs/heads/${base}`, sha, baseSha))) throw new GithubHttpError(409, 'Merge conflict');
      await syncBranches(ctx.core, repo, ctx.actor);
      // The resulting commit as GitHub answers it, with the files it changes on the branch.
      const commit = (await readCommit(repo.gitDir, sha)) as CommitObject;
      const files = commitFiles(repo, commit, await fileChanges(repo.gitDir, baseSha, sha), ctx.core.view);
      return ok({ ...repoCommit(repo, commit, ctx.core.view), files }, 201);
    });
  },

  'repos/compare-commits-with-basehead': async (ctx) => {
    const repo = repoOf(ctx);
    const basehead = ctx.params.basehead as string;
    const [baseName, headName] = basehead.includes('...') ? basehead.split('...', 2) : basehead.split('..', 2);
    const base = baseName === undefined ? null : await resolveCommitish(repo.gitDir, baseName);
    const head = headName === undefined ? null : await resolveCommitish(repo.gitDir, headName);
    if (base === null || head === null) throw notFound();
    const fork = await mergeBase(repo.gitDir, base, head);
    if (fork === null) throw new GithubHttpError(404, `No common ancestor between ${baseName} and ${headName}.`);
    const aheadBy = await countCommitsBetween(repo.gitDir, fork, head);
    const behindBy = await countCommitsBetween(repo.gitDir, fork, base);
    const status = aheadBy === 0 && behindBy === 0 ? 'identical' : behindBy === 0 ? 'ahead' : aheadBy === 0 ? 'behind' : 'diverged';
    const shas = await commitsBetween(repo.gitDir, fork, head, COMPARE_COMMITS_LIMIT);
    const html = `${repoHtmlUrl(repo, ctx.core.view)}/compare/${basehead}`;
    return ok({
      url: `${repoApiUrl(repo, ctx.core.view)}/compare/${basehead}`,
      html_url: html,
      permalink_url: `${repoHtmlUrl(repo, ctx.core.view)}/compare/${base.slice(0, 7)}...${head.slice(0, 7)}`,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      base_commit: await commitView(ctx, repo, base),
      merge_base_commit: await commitView(ctx, repo, fork),
      status,
      ahead_by: aheadBy,
      behind_by: behindBy,
      total_commits: aheadBy,
      commits: await Promise.all(shas.map((sha) => commitView(ctx, repo, sha))),
    });
  },

  'repos/get-content': async (ctx) => {
    const repo = repoOf(ctx);
    const ref = ctx.query.get('ref') ?? repo.defaultBranch;
    const commit = await resolveCommitish(repo.gitDir, ref);
    if (commit === null) throw new GithubHttpError(404, `No commit found for the ref ${ref}`);
    const filePath = (ctx.params.path as string).replace(/^\/+|\/+$/g, '');
    const entry =
      filePath === '' || filePath.split('/').some((p) => p === '.' || p === '..') ? null : await entryAt(repo.gitDir, commit, filePath);
    if (entry === null) throw notFound();
    if (entry.type === 'tree') {
      const children = await listTree(repo.gitDir, entry.sha, false);
      return ok(children.map((child) => contentEntry(ctx, repo, ref, { ...child, path: `${filePath}/${child.path}` })));
    }
    if (entry.type !== 'blob') throw notFound();
    const content = await readBlob(repo.gitDir, entry.sha);
    // GitHub wraps the base64 text at 60 characters.
    const encoded = (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n');
    return ok({ ...contentEntry(ctx, repo, ref, { ...entry, path: filePath }), content: encoded, encoding: 'base64' });
  },
};
